package droid

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on what one event puts into the session's activity.
const (
	maxPromptText = 16 << 10  // a prompt or a notice
	maxRawEvent   = 32 << 10  // an event kept raw
	maxPlanText   = 512 << 10 // a spec-mode plan
)

// ErrNoSession is returned for a payload without a session id: its updates cannot be placed.
var ErrNoSession = errors.New("droid hook payload: session_id is missing")

// State is what translating an event needs besides the event itself.
type State struct {
	// Announce names the session: agent, cwd, host and Droid's own id. Set it on the first
	// event plandash sees of a session; SessionStart always announces.
	Announce bool
	// Host is the machine's name, recorded with the session.
	Host string
}

// Translate turns one hook event into ACP JSON-RPC messages (the NDJSON lines POST
// /api/v1/ingest takes) that plans.Service.Apply applies unchanged, in one batch on a fresh
// stream. Every batch starts with an initialize exchange naming Droid, so the session shows the
// agent even when plandash missed SessionStart. Events plandash does not interpret are kept
// raw, bounded, in the session's activity.
func Translate(ev Event, st State) ([]json.RawMessage, error) {
	if ev.SessionID == "" {
		return nil, ErrNoSession
	}
	b := &batch{agentkit.Batch{SID: SessionKey(ev.SessionID), IDPrefix: "droid-"}}
	b.Initialize("plandash-hook", map[string]any{"name": AgentName, "title": AgentTitle})
	if st.Announce || ev.HookEventName == EventSessionStart {
		meta := map[string]any{"host": st.Host, "agentSessionId": ev.SessionID, "via": plans.ViaHooks}
		if ev.TranscriptPath != "" {
			meta["transcriptPath"] = ev.TranscriptPath
		}
		b.NewSession(ev.Cwd, meta)
	}
	switch ev.HookEventName {
	case EventSessionStart:
		text := "Session started"
		if ev.Source != "" {
			text += " (" + hookkit.Truncate(ev.Source, 64) + ")"
		}
		b.message(ev, text)
	case EventSessionEnd:
		b.Request("session/close", map[string]any{"sessionId": b.SID}, nil)
	case EventUserPromptSubmit:
		b.Request("session/prompt", map[string]any{"sessionId": b.SID,
			"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(ev.Prompt, maxPromptText)}}}, nil)
	case EventStop:
		b.message(ev, "Turn ended")
	case EventNotification:
		b.Update(map[string]any{"sessionUpdate": "notice", "severity": "info", "title": hookkit.Truncate(ev.Message, maxPromptText),
			"description": hookkit.Truncate(ev.NotificationType, 256)})
	case EventPreToolUse, EventPostToolUse:
		if !b.planTool(ev) {
			b.raw(ev)
		}
	default:
		b.raw(ev)
	}
	return b.Out, nil
}

// planTool handles the tools that carry plans and reports whether ev was one of them.
func (b *batch) planTool(ev Event) bool {
	switch ev.ToolName {
	case ToolTodoWrite:
		// Only once the tool ran is the list real (a PreToolUse hook may refuse it).
		if ev.HookEventName != EventPostToolUse {
			return true
		}
		todos, err := Todos(ev.ToolInput)
		switch {
		case err != nil:
			b.raw(ev)
		case len(todos) == 0:
			b.Update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
		default:
			b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos, "entries": TodoEntries(todos)}})
		}
	case ToolExitSpecMode:
		plan := inputString(ev.ToolInput, "plan")
		if plan == "" {
			b.raw(ev)
			return true
		}
		state, path := "proposed", ""
		if ev.HookEventName == EventPostToolUse {
			state, path = specOutcome(ev.ToolResponse)
		}
		droid := map[string]any{"state": state}
		if t := inputString(ev.ToolInput, "title"); t != "" {
			droid["title"] = hookkit.Truncate(t, 512)
		}
		if path != "" {
			droid["specFilePath"] = hookkit.Truncate(path, 4096)
		}
		b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanSpec,
			"content": hookkit.Truncate(plan, maxPlanText), "_meta": map[string]any{"plandash": droid}}})
	case ToolAskUser:
		// Questions are waits (see asking.go), not plans; the call shows in the activity.
		b.raw(ev)
	default:
		return false
	}
	return true
}

// specOutcome reads ExitSpecMode's result, a JSON string Droid hands the model:
// {"approved":true,"message":…,"filePath":"~/.factory/specs/….md","isEdited":false} when the
// spec was accepted; anything else (a refusal's text) counts as not approved.
func specOutcome(resp json.RawMessage) (state, path string) {
	var s string
	if json.Unmarshal(resp, &s) != nil {
		s = string(resp)
	}
	var r struct {
		Approved bool   `json:"approved"`
		FilePath string `json:"filePath"`
		IsEdited bool   `json:"isEdited"`
	}
	if json.Unmarshal([]byte(s), &r) != nil {
		return "unknown", ""
	}
	switch {
	case r.Approved && r.IsEdited:
		return "approved-edited", r.FilePath
	case r.Approved:
		return "approved", r.FilePath
	}
	return "rejected", r.FilePath
}

// batch is agentkit.Batch, with the messages only Droid's events make.
type batch struct{ agentkit.Batch }

// message adds an agent message whose id keeps two events apart: activity merges chunks that
// share an id.
func (b *batch) message(ev Event, text string) {
	h := sha256.Sum256(ev.Raw)
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "droid-" + hookkit.Truncate(ev.HookEventName, 64) + "-" + hex.EncodeToString(h[:6]),
		"content": map[string]any{"type": "text", "text": text}})
}

// raw keeps an event plandash does not interpret, bounded, as an extension update.
func (b *batch) raw(ev Event) {
	b.Update(map[string]any{"sessionUpdate": "_droid_hook", "hookEventName": hookkit.Truncate(ev.HookEventName, 256),
		"toolName": hookkit.Truncate(ev.ToolName, 256), "event": bounded(ev.Raw, maxRawEvent)})
}

// bounded returns v when it is at most max bytes, else a small object saying what was cut.
func bounded(v json.RawMessage, max int) json.RawMessage {
	v = bytes.TrimSpace(v)
	if len(v) <= max {
		return v
	}
	out, _ := json.Marshal(map[string]any{"truncated": true, "bytes": len(v), "preview": hookkit.Truncate(string(v), max/2)})
	return out
}

package qwen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on what one event puts into the session's activity.
const (
	maxPromptText = 16 << 10 // a prompt or the turn's answer
	maxRawEvent   = 32 << 10 // an event kept raw
	// MaxPlan bounds exit_plan_mode's plan as shown and held at the gate.
	MaxPlan = 512 << 10
)

// ErrNoSession is returned for a payload without a session id: its updates cannot be placed.
var ErrNoSession = errors.New("qwen hook payload: session_id is missing")

// State is what translating an event needs besides the event itself.
type State struct {
	// Announce names the session: agent, cwd, host and Qwen's own id. Set it on the first
	// event plandash sees of a session; SessionStart always announces.
	Announce bool
	// Host is the machine's name, recorded with the session.
	Host string
	// Via says where the session is seen from: plans.ViaHooks when empty, plans.ViaTranscript
	// for the discoverer.
	Via string
}

// Translate turns one hook event into ACP JSON-RPC messages (the NDJSON lines POST
// /api/v1/ingest takes) that plans.Service.Apply applies unchanged, in one batch on a fresh
// stream. Every batch starts with an initialize exchange naming Qwen Code, so the session
// shows the agent even when plandash missed SessionStart. Events plandash does not know are
// kept raw, bounded, in the session's activity.
func Translate(ev Event, st State) ([]json.RawMessage, error) {
	if ev.SessionID == "" {
		return nil, ErrNoSession
	}
	b := &batch{agentkit.Batch{SID: SessionKey(ev.SessionID), IDPrefix: "qwen-"}}
	b.Initialize("plandash-hook", map[string]any{"name": AgentName, "title": AgentTitle})
	if st.Announce || ev.HookEventName == EventSessionStart {
		via := st.Via
		if via == "" {
			via = plans.ViaHooks
		}
		meta := map[string]any{"host": st.Host, "agentSessionId": ev.SessionID, "via": via}
		if ev.TranscriptPath != "" {
			meta["transcriptPath"] = ev.TranscriptPath
		}
		b.NewSession(ev.Cwd, meta)
	}
	switch ev.HookEventName {
	case EventSessionStart:
		text := "Session started"
		if ev.Source != "" {
			text += " (" + ev.Source + ")"
		}
		b.message(ev, text)
	case EventSessionEnd:
		b.Request("session/close", map[string]any{"sessionId": b.SID}, nil)
	case EventUserPromptSubmit:
		// Qwen Code also fires it for the model calls that carry tool results, with the prompt
		// empty: only a prompt with text is the person's.
		text := ev.SubmittedPrompt
		if text == "" {
			text = ev.Prompt
		}
		if strings.TrimSpace(text) != "" {
			b.Request("session/prompt", map[string]any{"sessionId": b.SID,
				"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(text, maxPromptText)}}}, nil)
		}
	case EventStop:
		text := hookkit.Truncate(ev.LastMessage, maxPromptText)
		if text == "" {
			text = "Turn ended"
		}
		b.message(ev, text)
	case EventNotification:
		title := ev.Message
		if title == "" {
			title = ev.Title
		}
		b.Update(map[string]any{"sessionUpdate": "notice", "severity": "info", "title": hookkit.Truncate(title, maxPromptText),
			"description": ev.NotificationType})
	case EventPreToolUse, EventPostToolUse, EventPostToolUseFailure, EventPermissionRequest:
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
		// Only after the tool ran is the list real (a hook, or Qwen's own validation, may
		// refuse it).
		if ev.HookEventName != EventPostToolUse {
			return true
		}
		todos, ok := Todos(ev.ToolInput)
		switch {
		case !ok:
			b.raw(ev)
		case len(todos) == 0:
			b.Update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
		default:
			b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos, "entries": TodoEntries(todos)}})
		}
	case ToolExitPlanMode:
		var state string
		switch ev.HookEventName {
		case EventPermissionRequest:
			state = "proposed"
		case EventPostToolUse:
			state = exitOutcome(ev.ToolResponse)
		case EventPostToolUseFailure:
			state = "rejected"
		default:
			return true // PreToolUse runs after the dialog, once the plan is decided
		}
		md := PlanOf(ev.ToolInput)
		if strings.TrimSpace(md) == "" {
			b.raw(ev)
			return true
		}
		b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanMode,
			"content": hookkit.Truncate(md, MaxPlan), "_meta": map[string]any{"plandash": map[string]any{"state": state}}}})
	case ToolAskUserQuestion:
		return ev.HookEventName == EventPreToolUse // the question itself shows as a wait
	default:
		return false
	}
	return true
}

// exitOutcome reads exit_plan_mode's result: Qwen Code answers "User approved. …" when the plan
// was approved, and "Plan execution was not approved. …" or another note when it was not.
func exitOutcome(resp json.RawMessage) string {
	var r struct {
		LLMContent string `json:"llmContent"`
	}
	_ = json.Unmarshal(resp, &r)
	switch {
	case strings.HasPrefix(r.LLMContent, "User approved"):
		return "approved"
	case r.LLMContent == "":
		return "unknown"
	}
	return "rejected"
}

// PlanOf reads exit_plan_mode's tool_input.plan: the plan itself, in Markdown.
func PlanOf(input json.RawMessage) string {
	var in struct {
		Plan string `json:"plan"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Plan
}

// Todo is one todo_write entry.
type Todo struct {
	ID        string   `json:"id"`
	Content   string   `json:"content"`
	Status    string   `json:"status"`
	BlockedBy []string `json:"blockedBy,omitempty"`
}

// maxTodos bounds the entries kept of one list.
const maxTodos = 1000

// Todos reads todo_write's tool_input.todos. Entries that are not objects are skipped.
func Todos(input json.RawMessage) ([]Todo, bool) {
	var in struct {
		Todos []json.RawMessage `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil || in.Todos == nil {
		return nil, false
	}
	out := make([]Todo, 0, min(len(in.Todos), maxTodos))
	for _, raw := range in.Todos[:min(len(in.Todos), maxTodos)] {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			continue
		}
		var t Todo
		_ = json.Unmarshal(m["id"], &t.ID)
		_ = json.Unmarshal(m["content"], &t.Content)
		_ = json.Unmarshal(m["status"], &t.Status)
		_ = json.Unmarshal(m["blockedBy"], &t.BlockedBy)
		out = append(out, t)
	}
	return out, true
}

// TodoEntries maps todo_write entries onto ACP plan entries; Qwen's id and blockedBy are kept
// in _meta.qwen. Unknown statuses become "_"-prefixed custom values, which ACP allows.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		q := map[string]any{"id": hookkit.Truncate(t.ID, 512), "status": hookkit.Truncate(t.Status, 64)}
		if len(t.BlockedBy) > 0 {
			q["blockedBy"] = t.BlockedBy[:min(len(t.BlockedBy), 64)]
		}
		meta, _ := json.Marshal(map[string]any{"qwen": q})
		out = append(out, plans.Entry{Content: t.Content, Priority: "medium", Status: wireStatus(t.Status), Meta: meta})
	}
	return out
}

func wireStatus(s string) string {
	switch s {
	case "", plans.StatusPending:
		return plans.StatusPending
	case plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled:
		return s
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}

// batch is agentkit.Batch, with the messages only Qwen Code's events make.
type batch struct{ agentkit.Batch }

// message adds an agent message whose id keeps two turns apart: activity merges chunks that
// share an id.
func (b *batch) message(ev Event, text string) {
	h := sha256.Sum256(ev.Raw)
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "qwen-" + ev.HookEventName + "-" + hex.EncodeToString(h[:6]),
		"content": map[string]any{"type": "text", "text": text}})
}

// raw keeps an event plandash does not interpret, bounded, as an extension update.
func (b *batch) raw(ev Event) {
	b.Update(map[string]any{"sessionUpdate": "_qwen_hook", "hookEventName": hookkit.Truncate(ev.HookEventName, 256),
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

package copilot

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
	maxPromptText = 16 << 10 // a prompt
	maxRawEvent   = 32 << 10 // an event kept raw
	// MaxPlanFile bounds how much of plan.md is read and shown.
	MaxPlanFile = 512 << 10
)

// ErrNoSession is returned for a payload without a session id: its updates cannot be placed.
var ErrNoSession = errors.New("copilot hook payload: sessionId is missing")

// State is what translating an event needs besides the event itself.
type State struct {
	// Announce names the session: agent, cwd, host and Copilot's own id. Set it on the first
	// event plandash sees of a session; sessionStart always announces.
	Announce bool
	// Host is the machine's name, recorded with the session.
	Host string
}

// Translate turns one hook event into ACP JSON-RPC messages that plans.Service.Apply applies
// unchanged, in one batch on a fresh stream. Every batch starts with an initialize exchange
// naming Copilot CLI, so the session shows the agent even when plandash missed sessionStart.
// Events plandash does not know are kept raw, bounded, in the session's activity.
func Translate(ev Event, st State) ([]json.RawMessage, error) {
	if ev.SessionID == "" {
		return nil, ErrNoSession
	}
	b := &batch{agentkit.Batch{SID: SessionKey(ev.SessionID), IDPrefix: "copilot-"}}
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
			text += " (" + ev.Source + ")"
		}
		b.message(ev, text)
	case EventSessionEnd:
		b.Request("session/close", map[string]any{"sessionId": b.SID}, nil)
	case EventUserPrompt:
		b.Request("session/prompt", map[string]any{"sessionId": b.SID,
			"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(ev.Prompt, maxPromptText)}}}, nil)
	case EventAgentStop:
		text := "Turn ended"
		if ev.StopReason != "" {
			text += " (" + ev.StopReason + ")"
		}
		b.message(ev, text)
	case EventErrorOccurred:
		b.Update(map[string]any{"sessionUpdate": "notice", "severity": "error",
			"title": hookkit.Truncate("Copilot CLI error: "+ev.ErrorMessage, maxPromptText)})
	case EventPreToolUse, EventPostToolUse:
		switch {
		case b.planTool(ev):
		case ev.HookEventName == EventPostToolUse:
			b.toolCall(ev)
		default:
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
	case ToolSQL:
		// The list is only real after the statement ran, and only the hook on the agent's
		// machine could read it (plandash_todos).
		if ev.HookEventName != EventPostToolUse || ev.Todos == nil {
			return false
		}
		if len(ev.Todos.Todos) == 0 {
			b.Update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
			return true
		}
		meta := map[string]any{"plandash": map[string]any{"truncated": ev.Todos.Truncated}}
		b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos,
			"entries": TodoEntries(ev.Todos.Todos), "_meta": meta}})
	case ToolExitPlanMode:
		state := "proposed"
		if ev.HookEventName == EventPostToolUse {
			state = exitOutcome(ev.ResultType)
		}
		summary := hookkit.Truncate(argString(ev.ToolArgs, "summary"), MaxPlanFile)
		meta := map[string]any{"plandash": map[string]any{"planFilePath": ev.PlanPath, "state": state}}
		content := ev.Plan
		if content == "" {
			content = summary
		}
		if content == "" {
			return false
		}
		b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanMode,
			"content": hookkit.Truncate(content, MaxPlanFile), "_meta": meta}})
	default:
		return false
	}
	return true
}

// toolCall shows a finished tool call by its title only: the tool and what it worked on (the
// command, the path), never its result, which holds the project's code.
func (b *batch) toolCall(ev Event) {
	title := ev.ToolName
	if cmd := argString(ev.ToolArgs, "command"); cmd != "" {
		title += ": " + cmd
	} else if p := argString(ev.ToolArgs, "path"); p != "" {
		title += " " + p
	}
	status := "completed"
	if ev.ResultType != "" && ev.ResultType != "success" {
		status = "failed"
	}
	h := sha256.Sum256(ev.Raw)
	b.Update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "copilot-" + hex.EncodeToString(h[:8]),
		"title": hookkit.Truncate(title, 256), "kind": "other", "status": status,
		"_meta": map[string]any{"copilot": map[string]any{"toolName": hookkit.Truncate(ev.ToolName, 128), "resultType": hookkit.Truncate(ev.ResultType, 64)}}})
}

// exitOutcome reads exit_plan_mode's result type.
func exitOutcome(resultType string) string {
	switch resultType {
	case "success":
		return "approved"
	case "denied", "failure":
		return "rejected"
	}
	return "unknown"
}

// batch is agentkit.Batch, with the messages only Copilot CLI's events make.
type batch struct{ agentkit.Batch }

// message adds an agent message whose id keeps two turns apart: activity merges chunks that
// share an id.
func (b *batch) message(ev Event, text string) {
	h := sha256.Sum256(ev.Raw)
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "copilot-" + ev.HookEventName + "-" + hex.EncodeToString(h[:6]),
		"content": map[string]any{"type": "text", "text": text}})
}

// raw keeps an event plandash does not interpret, bounded, as an extension update.
func (b *batch) raw(ev Event) {
	b.Update(map[string]any{"sessionUpdate": "_copilot_hook", "hookEventName": ev.HookEventName, "toolName": ev.ToolName,
		"event": bounded(ev.Raw, maxRawEvent)})
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

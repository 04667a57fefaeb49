package gemini

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
)

// ErrNoSession is returned for a payload without a session id: its updates cannot be placed.
var ErrNoSession = errors.New("gemini hook payload: session_id is missing")

// PlanText is a plan-mode plan as read from its file.
type PlanText struct {
	Markdown string
	Path     string
	// Unreadable says why the file was not read, for the person deciding.
	Unreadable string
}

// State is what translating an event needs besides the event itself.
type State struct {
	// Announce names the session: agent, cwd, host and Gemini's own id. Set it on the first
	// event plandash sees of a session; SessionStart always announces.
	Announce bool
	// Host is the machine's name, recorded with the session.
	Host string
	// Plan is the plan file of an exit_plan_mode event, read by the caller (translation does
	// no I/O).
	Plan PlanText
}

// Translate turns one hook event into ACP JSON-RPC messages (the NDJSON lines POST
// /api/v1/ingest takes) that plans.Service.Apply applies unchanged, in one batch on a fresh
// stream. Every batch starts with an initialize exchange naming Gemini CLI, so the session
// shows the agent even when plandash missed SessionStart. Events plandash does not know are
// kept raw, bounded, in the session's activity.
func Translate(ev Event, st State) ([]json.RawMessage, error) {
	if ev.SessionID == "" {
		return nil, ErrNoSession
	}
	b := &batch{agentkit.Batch{SID: SessionKey(ev.SessionID), IDPrefix: "gemini-"}}
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
	case EventBeforeAgent:
		b.Request("session/prompt", map[string]any{"sessionId": b.SID,
			"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(ev.Prompt, maxPromptText)}}}, nil)
	case EventAfterAgent:
		text := hookkit.Truncate(ev.PromptResponse, maxPromptText)
		if text == "" {
			text = "Turn ended"
		}
		b.message(ev, text)
	case EventNotification:
		b.Update(map[string]any{"sessionUpdate": "notice", "severity": "info", "title": hookkit.Truncate(ev.Message, maxPromptText),
			"description": ev.NotificationType})
	case EventBeforeTool, EventAfterTool:
		if !b.planTool(ev, st) {
			b.raw(ev)
		}
	default:
		b.raw(ev)
	}
	return b.Out, nil
}

// planTool handles the tools that carry plans and reports whether ev was one of them.
func (b *batch) planTool(ev Event, st State) bool {
	switch ev.ToolName {
	case ToolWriteTodos:
		// Only after the tool ran is the list real (a BeforeTool hook or policy may refuse it).
		if ev.HookEventName != EventAfterTool {
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
		state := "proposed"
		if ev.HookEventName == EventAfterTool {
			state = exitOutcome(ev.ToolResponse)
		}
		meta := map[string]any{"plandash": map[string]any{"planFilePath": st.Plan.Path, "planFilename": PlanFilename(ev.ToolInput), "state": state}}
		switch {
		case st.Plan.Markdown != "":
			b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanMode, "content": st.Plan.Markdown, "_meta": meta}})
		case st.Plan.Path != "":
			b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "file", "planId": PlanMode, "uri": "file://" + st.Plan.Path, "_meta": meta}})
		default:
			b.raw(ev)
		}
	default:
		return false
	}
	return true
}

// exitOutcome reads exit_plan_mode's result: Gemini CLI answers "Plan approved…" or "Plan
// rejected. User feedback: …" in llmContent.
func exitOutcome(resp json.RawMessage) string {
	var r struct {
		LLMContent string `json:"llmContent"`
	}
	_ = json.Unmarshal(resp, &r)
	switch {
	case strings.HasPrefix(r.LLMContent, "Plan approved"):
		return "approved"
	case strings.HasPrefix(r.LLMContent, "Plan rejected"):
		return "rejected"
	}
	return "unknown"
}

// Todo is one write_todos entry.
type Todo struct {
	Description string `json:"description"`
	Status      string `json:"status"`
}

// Todos reads write_todos' tool_input.todos. Entries that are not objects are skipped.
func Todos(input json.RawMessage) ([]Todo, bool) {
	var in struct {
		Todos []json.RawMessage `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil || in.Todos == nil {
		return nil, false
	}
	out := make([]Todo, 0, len(in.Todos))
	for _, raw := range in.Todos {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			continue
		}
		var t Todo
		_ = json.Unmarshal(m["description"], &t.Description)
		_ = json.Unmarshal(m["status"], &t.Status)
		out = append(out, t)
	}
	return out, true
}

// TodoEntries maps write_todos entries onto ACP plan entries. ACP has no "blocked": a blocked
// todo shows as pending, and its own status is kept in _meta.gemini.status so nothing is lost.
// Other unknown statuses become "_"-prefixed custom values, which ACP allows.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		meta, _ := json.Marshal(map[string]any{"gemini": map[string]string{"status": t.Status}})
		out = append(out, plans.Entry{Content: t.Description, Priority: "medium", Status: wireStatus(t.Status), Meta: meta})
	}
	return out
}

func wireStatus(s string) string {
	switch s {
	case "", "blocked", plans.StatusPending:
		return plans.StatusPending
	case plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled:
		return s
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}

// PlanFilename reads exit_plan_mode's tool_input.plan_filename.
func PlanFilename(input json.RawMessage) string {
	var in struct {
		PlanFilename string `json:"plan_filename"`
	}
	_ = json.Unmarshal(input, &in)
	return in.PlanFilename
}

// batch is agentkit.Batch, with the messages only Gemini CLI's events make.
type batch struct{ agentkit.Batch }

// message adds an agent message whose id keeps two turns apart: activity merges chunks that
// share an id.
func (b *batch) message(ev Event, text string) {
	h := sha256.Sum256(ev.Raw)
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "gemini-" + ev.HookEventName + "-" + hex.EncodeToString(h[:6]),
		"content": map[string]any{"type": "text", "text": text}})
}

// raw keeps an event plandash does not interpret, bounded, as an extension update.
func (b *batch) raw(ev Event) {
	b.Update(map[string]any{"sessionUpdate": "_gemini_hook", "hookEventName": ev.HookEventName, "toolName": ev.ToolName,
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

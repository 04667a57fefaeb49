// Package copilot is plandash's adapter for GitHub Copilot CLI running in a terminal: it decodes
// the payloads Copilot CLI's command hooks send, turns them into the same ACP JSON-RPC messages
// the ingest API takes, shows the session's todo list (which Copilot keeps in a table of its
// session database, not in a tool's input), holds plan-mode plans (exit_plan_mode) at the
// approval gate, and installs the hooks into Copilot CLI's user settings.
package copilot

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxEventBytes bounds one hook payload. postToolUse carries the tool's result (a file the
// model viewed), so the bound is generous, but a runaway payload is refused, not buffered.
const MaxEventBytes = 16 << 20

// Hook event names, as Copilot CLI 1.0.102 keys them in settings.json's "hooks". The payload
// itself does not name its event (but for permissionRequest's "hookName"): plandash's install
// passes it in the hook's environment (EnvEvent), and Decode guesses it from the payload's
// fields when that is missing.
const (
	EventSessionStart      = "sessionStart"
	EventSessionEnd        = "sessionEnd"
	EventUserPrompt        = "userPromptSubmitted"
	EventPreToolUse        = "preToolUse"
	EventPostToolUse       = "postToolUse"
	EventAgentStop         = "agentStop"
	EventErrorOccurred     = "errorOccurred"
	EventSubagentStop      = "subagentStop"
	EventNotification      = "notification"
	EventPermissionRequest = "permissionRequest"
)

// EnvEvent is the environment variable plandash's hook entries set to their event's name, so
// `plandash hook copilot` knows which event it was run for.
const EnvEvent = "PLANDASH_COPILOT_EVENT"

// EnvNoGate, set to 1 on the preToolUse entry of an install without the gate, makes `plandash
// hook copilot` send exit_plan_mode's plan as a capture that nobody holds.
const EnvNoGate = "PLANDASH_COPILOT_NO_GATE"

// Tool names whose calls carry plans.
const (
	// ToolSQL is the tool the model writes its todo list with: rows of the "todos" table in
	// the session's own SQLite database (session-state/<id>/session.db).
	ToolSQL = "sql"
	// ToolExitPlanMode asks the person to approve plan.md (session-state/<id>/plan.md).
	ToolExitPlanMode = "exit_plan_mode"
)

// Plan ids of the plans a Copilot CLI session shows.
const (
	PlanTodos = "todos" // the todos table, shown whole after every change
	PlanMode  = "plan"  // plan.md, as exit_plan_mode proposes it
)

// AgentName and AgentTitle name Copilot CLI in sessions and at the gate.
const (
	AgentName  = "copilot-cli"
	AgentTitle = "Copilot CLI"
)

// SessionPrefix starts every plandash session id that comes from Copilot CLI hooks.
const SessionPrefix = "copilot:"

// SessionKey is the plandash session id of a Copilot CLI session.
func SessionKey(copilotSessionID string) string { return SessionPrefix + copilotSessionID }

// Event is one hook payload. Known fields are lifted out; Raw is the whole payload as sent.
// The plandash_ fields are added by `plandash hook copilot` on the agent's machine.
type Event struct {
	HookEventName  string
	SessionID      string
	Timestamp      int64 // Unix milliseconds
	Cwd            string
	Source         string // sessionStart: new, resume, startup
	InitialPrompt  string
	Prompt         string
	Reason         string // sessionEnd
	StopReason     string // agentStop
	TranscriptPath string
	ToolName       string
	// ToolArgs is the call's arguments as an object (permissionRequest's toolInput). Copilot
	// CLI 1.0.102 sends an object; its documentation shows a JSON string, which is read too.
	ToolArgs json.RawMessage
	// ResultType and ResultText are postToolUse's toolResult: success, failure or denied.
	ResultType, ResultText string
	ErrorMessage           string // errorOccurred

	NoGate   bool   // plandash_no_gate: the plan is only recorded (EnvNoGate)
	Host     string // plandash_host
	Todos    *TodoList
	Plan     string // plandash_plan: plan.md, for exit_plan_mode
	PlanPath string // plandash_plan_path
	Raw      json.RawMessage
}

// DecodeError says why a payload is not a hook event.
type DecodeError struct{ Message string }

// Error names the problem.
func (e *DecodeError) Error() string { return "copilot hook payload: " + e.Message }

// Decode reads one hook payload. It fails only when the payload is not a JSON object (or is too
// large or not UTF-8); fields of an unexpected type are ignored rather than failing the event.
func Decode(b []byte) (Event, error) {
	p, err := hookkit.DecodePayload(b, MaxEventBytes)
	if err != nil {
		return Event{}, &DecodeError{err.Error()}
	}
	m, t := p.Members, p.Raw
	str := p.String
	ev := Event{
		HookEventName: str("plandash_event"), SessionID: str("sessionId"), Cwd: str("cwd"),
		Source: str("source"), InitialPrompt: str("initialPrompt"), Prompt: str("prompt"), Reason: str("reason"),
		StopReason: str("stopReason"), TranscriptPath: str("transcriptPath"), ToolName: str("toolName"),
		ToolArgs: toolArgs(m["toolArgs"]), Host: str("plandash_host"), Plan: str("plandash_plan"),
		PlanPath: str("plandash_plan_path"), Raw: bytes.Clone(t),
	}
	_ = json.Unmarshal(m["timestamp"], &ev.Timestamp)
	_ = json.Unmarshal(m["plandash_no_gate"], &ev.NoGate)
	if ev.ToolArgs == nil {
		ev.ToolArgs = toolArgs(m["toolInput"]) // permissionRequest's name for it
	}
	var res struct {
		ResultType       string `json:"resultType"`
		TextResultForLlm string `json:"textResultForLlm"`
	}
	if json.Unmarshal(m["toolResult"], &res) == nil {
		ev.ResultType, ev.ResultText = res.ResultType, res.TextResultForLlm
	}
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(m["error"], &e) == nil {
		ev.ErrorMessage = e.Message
	}
	if raw, ok := m["plandash_todos"]; ok {
		var tl TodoList
		if json.Unmarshal(raw, &tl) == nil {
			tl.bound()
			ev.Todos = &tl
		}
	}
	if ev.HookEventName == "" {
		ev.HookEventName = guessEvent(m)
	}
	return ev, nil
}

// toolArgs is toolArgs as an object: as sent, or decoded from the JSON string the documentation
// shows. Anything else is dropped.
func toolArgs(raw json.RawMessage) json.RawMessage {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 {
		return nil
	}
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil
		}
		v = bytes.TrimSpace([]byte(s))
	}
	if len(v) == 0 || v[0] != '{' || !json.Valid(v) {
		return nil
	}
	return v
}

// guessEvent names the event of a payload that does not say, from the fields only that event
// has (Copilot CLI 1.0.102's payloads, testdata/captured).
func guessEvent(m map[string]json.RawMessage) string {
	has := func(k string) bool { _, ok := m[k]; return ok }
	var name string
	if json.Unmarshal(m["hookName"], &name) == nil && name != "" {
		return name
	}
	switch {
	case has("permissionSuggestions"):
		return EventPermissionRequest
	case has("toolResult"):
		return EventPostToolUse
	case has("toolName"):
		return EventPreToolUse
	case has("source"):
		return EventSessionStart
	case has("stopReason") || has("stop_hook_active"):
		return EventAgentStop
	case has("prompt"):
		return EventUserPrompt
	case has("error"):
		return EventErrorOccurred
	case has("reason"):
		return EventSessionEnd
	}
	return ""
}

// argString reads one string argument of a tool call.
func argString(args json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[key], &s)
	return s
}

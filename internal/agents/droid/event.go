// Package droid is plandash's adapter for Factory's Droid CLI in a terminal: it decodes the
// payloads Droid's command hooks send (the Claude Code shape, configured in
// ~/.factory/settings.json), turns them into the same ACP JSON-RPC messages the ingest API
// takes, holds spec-mode plans (ExitSpecMode) at the approval gate, answers AskUser's questions
// from plandash, and installs the hooks into Droid's settings.
//
// What Droid does was read from the CLI itself (0.225.2, the bundled JS in its binary) and
// checked against it running here: TodoWrite takes {"todos": "1. [in_progress] …\n2. [pending]
// …"} (a string of numbered lines; older sessions may send a JSON array), ExitSpecMode
// {"plan", "title"?}, AskUser {"questionnaire"} (numbered "[question]"/"[topic]"/"[option]"
// lines). All three run only in the interactive CLI, not in `droid exec`.
package droid

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxEventBytes bounds one hook payload. PostToolUse carries tool output, so the bound is
// generous, but a runaway payload is refused, not buffered.
const MaxEventBytes = 16 << 20

// Hook event names Droid sends (the same as Claude Code's, fewer of them).
const (
	EventSessionStart     = "SessionStart"
	EventSessionEnd       = "SessionEnd"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventPreToolUse       = "PreToolUse"
	EventPostToolUse      = "PostToolUse"
	EventNotification     = "Notification"
	EventStop             = "Stop"
	EventSubagentStop     = "SubagentStop"
	EventPreCompact       = "PreCompact"
)

// Tool names whose calls carry plans or questions.
const (
	ToolTodoWrite    = "TodoWrite"
	ToolExitSpecMode = "ExitSpecMode"
	ToolAskUser      = "AskUser"
)

// Plan ids of the plans a Droid session shows.
const (
	PlanTodos = "todos" // TodoWrite's list, replaced whole by each call
	PlanSpec  = "spec"  // the spec-mode plan ExitSpecMode proposes
)

// AgentName and AgentTitle name Droid in sessions and at the gate.
const (
	AgentName  = "droid"
	AgentTitle = "Droid"
)

// SessionPrefix starts every plandash session id that comes from Droid hooks, keeping Droid's
// ids apart from other agents' ids, which may look alike.
const SessionPrefix = "droid:"

// SessionKey is the plandash session id of a Droid session.
func SessionKey(droidSessionID string) string { return SessionPrefix + droidSessionID }

// Event is one hook payload. Known fields are lifted out; Raw is the whole payload as sent.
type Event struct {
	SessionID        string
	TranscriptPath   string
	Cwd              string
	PermissionMode   string // "spec" in spec mode; "off", "auto-low", … otherwise
	HookEventName    string
	ToolName         string
	ToolInput        json.RawMessage
	ToolResponse     json.RawMessage
	Prompt           string // UserPromptSubmit
	Message          string // Notification
	NotificationType string // Notification: permission_prompt, elicitation_dialog, …
	Source           string // SessionStart: startup, resume, …
	Reason           string // SessionEnd
	// Host is added by `plandash hook droid` on the agent's machine.
	Host string
	Raw  json.RawMessage
}

// DecodeError says why a payload is not a hook event.
type DecodeError struct{ Message string }

// Error names the problem.
func (e *DecodeError) Error() string { return "droid hook payload: " + e.Message }

// Decode reads one hook payload. It fails only when the payload is not a JSON object (or is
// too large or not UTF-8); a field of an unexpected type is ignored rather than failing the
// event, because a hook must never break the agent over one odd field.
func Decode(b []byte) (Event, error) {
	p, err := hookkit.DecodePayload(b, MaxEventBytes)
	if err != nil {
		return Event{}, &DecodeError{err.Error()}
	}
	t := p.Raw
	str := p.String
	val := p.Value
	return Event{
		SessionID: str("session_id"), TranscriptPath: str("transcript_path"), Cwd: str("cwd"),
		PermissionMode: str("permission_mode"), HookEventName: str("hook_event_name"),
		ToolName: str("tool_name"), ToolInput: val("tool_input"), ToolResponse: val("tool_response"),
		Prompt: str("prompt"), Message: str("message"), NotificationType: str("notification_type"),
		Source: str("source"), Reason: str("reason"), Host: str("plandash_host"),
		Raw: bytes.Clone(t),
	}, nil
}

// inputString reads one string member of a tool's input ("" when absent or not a string).
func inputString(input json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}

// Package crush is plandash's adapter for Crush (Charm's terminal coding agent): it decodes the
// payloads Crush's PreToolUse command hook sends (its one hook event), shows the session's todo
// list (the todos tool, which replaces the whole list on each call), and lets a person answer
// Crush's questions (the question tool) in plandash. Crush has no plan mode, so there is no
// plan to hold at the approval gate. It also installs the hook into Crush's crush.json.
package crush

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxEventBytes bounds one hook payload: PreToolUse carries only the tool's input.
const MaxEventBytes = 4 << 20

// EventPreToolUse is the one hook event Crush has (docs/hooks/README.md: "Crush currently
// supports just one hook, PreToolUse"). Crush reads event names case-insensitively.
const EventPreToolUse = "PreToolUse"

// Tool names whose calls plandash reads.
const (
	ToolTodos    = "todos"    // {todos:[{content, status, active_form}]}, the whole list
	ToolQuestion = "question" // {questions:[{type, question, description, choices, label}]}
)

// PlanTodos is the plan id of the todo list.
const PlanTodos = "todos"

// AgentName and AgentTitle name Crush in sessions and waits.
const (
	AgentName  = "crush"
	AgentTitle = "Crush"
)

// SessionPrefix starts every plandash session id that comes from Crush hooks.
const SessionPrefix = "crush:"

// SessionKey is the plandash session id of a Crush session.
func SessionKey(crushSessionID string) string { return SessionPrefix + crushSessionID }

// Event is one hook payload (Crush's internal/hooks Payload): {event, session_id, cwd,
// tool_name, tool_input}. Host is added by `plandash hook crush` on the agent's machine.
type Event struct {
	Event     string          `json:"event,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	Cwd       string          `json:"cwd,omitempty"`
	ToolName  string          `json:"tool_name,omitempty"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	Host      string          `json:"plandash_host,omitempty"`
	Raw       json.RawMessage `json:"-"`
}

// DecodeError says why a payload is not a hook event.
type DecodeError struct{ Message string }

// Error names the problem.
func (e *DecodeError) Error() string { return "crush hook payload: " + e.Message }

// Decode reads one hook payload. It fails only when the payload is not a JSON object (or is too
// large or not UTF-8); fields of an unexpected type are ignored.
func Decode(b []byte) (Event, error) {
	p, err := hookkit.DecodePayload(b, MaxEventBytes)
	if err != nil {
		return Event{}, &DecodeError{err.Error()}
	}
	m, t := p.Members, p.Raw
	str := p.String
	ev := Event{Event: str("event"), SessionID: str("session_id"), Cwd: str("cwd"), ToolName: str("tool_name"),
		Host: str("plandash_host"), Raw: bytes.Clone(t)}
	if in := bytes.TrimSpace(m["tool_input"]); len(in) > 0 && in[0] == '{' {
		ev.ToolInput = in
	}
	return ev, nil
}

// Package pi is plandash's adapter for Pi (@mariozechner/pi-coding-agent). Pi has no todo list,
// no plan mode and no command hooks of its own; it has TypeScript extensions. plandash installs
// one (extension/plandash.ts) that gives the model a todo_write tool, a submit_plan tool held at
// plandash's gate and an ask_user tool answered in plandash, and posts those and the session's
// life (start, prompt, turn end) to POST /api/v1/hooks/pi. This package decodes those posts,
// turns them into the same ACP updates every other agent's become, and answers the held ones.
package pi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxEventBytes bounds one posted event. The extension cuts every text at 64 KiB, so a real
// event is far smaller; a larger one is refused, not buffered.
const MaxEventBytes = 1 << 20

// MaxID bounds an event's sessionId, callId and type: Pi's are UUIDs and short names.
const MaxID = 256

// Event types the extension posts.
const (
	EventSessionStart    = "session_start"
	EventPrompt          = "prompt"
	EventAgentEnd        = "agent_end"
	EventSessionShutdown = "session_shutdown"
	EventTodos           = "todos"    // todo_write ran: the whole list
	EventPlan            = "plan"     // submit_plan: held until a person decides
	EventQuestion        = "question" // ask_user: held until a person answers
	EventAnswered        = "answered" // ask_user was answered in Pi's terminal
)

// Plan ids of the plans a Pi session shows.
const (
	PlanTodos = "todos" // todo_write's list, replaced whole by each call
	PlanMode  = "plan"  // the plan submit_plan proposes
)

// AgentName and AgentTitle name Pi in sessions and at the gate.
const (
	AgentName  = "pi"
	AgentTitle = "Pi"
)

// SessionPrefix starts every plandash session id that comes from Pi, keeping Pi's ids apart
// from other agents' ids, which may look alike.
const SessionPrefix = "pi:"

// SessionKey is the plandash session id of a Pi session.
func SessionKey(piSessionID string) string { return SessionPrefix + piSessionID }

// Todo is one todo_write entry.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Event is one posted event. Fields that do not belong to its type are empty.
type Event struct {
	Type        string   `json:"type"`
	SessionID   string   `json:"sessionId"`
	SessionFile string   `json:"sessionFile,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	Host        string   `json:"host,omitempty"`
	Reason      string   `json:"reason,omitempty"` // session_start: startup, reload, new, resume, fork
	Prompt      string   `json:"prompt,omitempty"`
	Text        string   `json:"text,omitempty"` // agent_end: the turn's last answer
	Todos       []Todo   `json:"todos,omitempty"`
	CallID      string   `json:"callId,omitempty"`
	Plan        string   `json:"plan,omitempty"`
	Question    string   `json:"question,omitempty"`
	Options     []string `json:"options,omitempty"`
	Answers     []string `json:"answers,omitempty"`
}

// Decode reads one posted event. It fails, saying where, when the body is not a JSON object
// of the extension's shape or has no type or session.
func Decode(body []byte) (Event, error) {
	body = bytes.TrimSpace(body)
	if len(body) > MaxEventBytes {
		return Event{}, fmt.Errorf("pi event: %d bytes, over the %d byte limit", len(body), MaxEventBytes)
	}
	if !utf8.Valid(body) {
		return Event{}, fmt.Errorf("pi event: not UTF-8")
	}
	var ev Event
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("pi event: %w", err)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("pi event: data after the JSON object at byte %d", dec.InputOffset())
	}
	switch {
	case ev.Type == "":
		return Event{}, fmt.Errorf("pi event: no type")
	case ev.SessionID == "":
		return Event{}, fmt.Errorf("pi event %q: no sessionId", ev.Type)
	case len(ev.SessionID) > MaxID || len(ev.CallID) > MaxID || len(ev.Type) > MaxID:
		return Event{}, fmt.Errorf("pi event: sessionId, callId or type over %d bytes", MaxID)
	}
	return ev, nil
}

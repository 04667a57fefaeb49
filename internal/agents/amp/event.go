// Package amp is plandash's adapter for Amp (Sourcegraph's coding agent, @ampcode/cli): a
// small plugin, installed into Amp's plugins directory, posts Amp's plugin events to plandash
// (session.start, agent.start, the todo tool's tool.call and tool.result, agent.end); this
// package turns them into the same ACP JSON-RPC messages the ingest API takes, lists a finished
// turn as waiting for the next prompt, and, with the gate on, holds the end of a turn that wrote
// a todo list until a person approved that plan (a plan sent back returns to Amp as a follow-up
// message, through agent.end's "continue" result).
//
// Amp has no command hooks and no plan mode; its plugin API (`amp plugins show-docs`,
// 0.0.1790142911-g7618fb) is what it offers, and its threads run on ampcode.com, so Amp itself
// does not run here without an account (see docs/agents.md).
package amp

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxEventBytes bounds one posted event; the plugin sends no tool output, so events are small.
const MaxEventBytes = 4 << 20

// Plugin event names (the PluginEventMap of Amp's plugin API).
const (
	EventSessionStart = "session.start"
	EventAgentStart   = "agent.start"
	EventToolCall     = "tool.call"
	EventToolResult   = "tool.result"
	EventAgentEnd     = "agent.end"
)

// ToolTodoWrite is Amp's todo tool: {"todos":[{"id","content","status","priority"}]}, status
// "todo", "in-progress" or "completed".
const ToolTodoWrite = "todo_write"

// PlanTodos is the plan id of a thread's todo list, replaced whole by each call.
const PlanTodos = "todos"

// AgentName and AgentTitle name Amp in sessions and at the gate.
const (
	AgentName  = "amp"
	AgentTitle = "Amp"
)

// SessionPrefix starts every plandash session id that comes from Amp, keeping Amp's thread ids
// apart from other agents' ids.
const SessionPrefix = "amp:"

// SessionKey is the plandash session id of an Amp thread.
func SessionKey(threadID string) string { return SessionPrefix + threadID }

// Event is one event as plandash's plugin posts it: the plugin event's name and its fields,
// plus the directory and machine Amp runs in.
type Event struct {
	Name      string
	ThreadID  string
	MessageID string // agent.start, agent.end: the message that started the turn
	Message   string // agent.start: the prompt
	Tool      string
	ToolUseID string
	Input     json.RawMessage
	Status    string // tool.result: done, error, cancelled; agent.end likewise
	Cwd       string
	Host      string
	// Gate is set on agent.end by a plugin installed with the gate: the turn may be held.
	Gate bool
	Raw  json.RawMessage
}

// DecodeError says why a payload is not an Amp event.
type DecodeError struct{ Message string }

// Error names the problem.
func (e *DecodeError) Error() string { return "amp plugin event: " + e.Message }

// Decode reads one posted event. It fails when the payload is not a JSON object (or is too
// large or not UTF-8) or names no event; a field of an unexpected type is ignored.
func Decode(b []byte) (Event, error) {
	p, err := hookkit.DecodePayload(b, MaxEventBytes)
	if err != nil {
		return Event{}, &DecodeError{err.Error()}
	}
	m, t := p.Members, p.Raw
	str := hookkit.StringOf
	var thread map[string]json.RawMessage
	_ = json.Unmarshal(m["thread"], &thread)
	ev := Event{
		Name: str(m["event"]), ThreadID: str(thread["id"]), MessageID: str(m["id"]), Message: str(m["message"]),
		Tool: str(m["tool"]), ToolUseID: str(m["toolUseID"]), Status: str(m["status"]),
		Cwd: str(m["cwd"]), Host: str(m["plandash_host"]), Raw: bytes.Clone(t),
	}
	var n json.Number
	if ev.MessageID == "" && json.Unmarshal(m["id"], &n) == nil {
		ev.MessageID = n.String() // Amp's message ids may be numbers
	}
	_ = json.Unmarshal(m["gate"], &ev.Gate)
	ev.Input = p.Value("input")
	if ev.Name == "" {
		return Event{}, &DecodeError{"names no event"}
	}
	return ev, nil
}

package amp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on what one event puts into the session.
const (
	maxPromptText = 16 << 10
	maxRawEvent   = 32 << 10
	maxTodos      = 200
	maxTodoBytes  = 2 << 10
)

// ErrNoThread is returned for an event without a thread id: its updates cannot be placed.
var ErrNoThread = errors.New("amp plugin event: thread.id is missing")

// Todo is one todo_write item.
type Todo struct {
	Content  string
	Status   string // as Amp wrote it: todo, in-progress, completed
	Priority string
}

// Todos reads todo_write's input. Entries that are not objects with content are skipped; the
// list is cut at maxTodos items. An input without a todos list is an error saying so.
func Todos(input json.RawMessage) ([]Todo, error) {
	var in struct {
		Todos []json.RawMessage `json:"todos"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("todo_write input is not an object with a todos list: %w", err)
	}
	if in.Todos == nil {
		return nil, errors.New("todo_write input has no todos list")
	}
	out := []Todo{}
	for _, raw := range in.Todos {
		if len(out) == maxTodos {
			break
		}
		var t struct {
			Content  string `json:"content"`
			Status   string `json:"status"`
			Priority string `json:"priority"`
		}
		if json.Unmarshal(raw, &t) != nil || strings.TrimSpace(t.Content) == "" {
			continue
		}
		out = append(out, Todo{Content: hookkit.Truncate(t.Content, maxTodoBytes), Status: hookkit.Truncate(t.Status, 32), Priority: hookkit.Truncate(t.Priority, 16)})
	}
	return out, nil
}

// TodoEntries maps Amp's todos onto ACP plan entries; Amp's own status word is kept in
// _meta.amp.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		meta, _ := json.Marshal(map[string]any{"amp": map[string]string{"status": t.Status}})
		prio := t.Priority
		if prio != "high" && prio != "low" {
			prio = "medium"
		}
		out = append(out, plans.Entry{Content: t.Content, Priority: prio, Status: wireStatus(t.Status), Meta: meta})
	}
	return out
}

func wireStatus(s string) string {
	switch s {
	case "", "todo", plans.StatusPending:
		return plans.StatusPending
	case "in-progress", plans.StatusInProgress:
		return plans.StatusInProgress
	case plans.StatusCompleted, "done":
		return plans.StatusCompleted
	case plans.StatusCancelled:
		return s
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}

// State is what translating an event needs besides the event itself.
type State struct {
	// Announce names the session; set it on the first event plandash sees of a thread.
	Announce bool
	// Host is the machine's name when the plugin did not say.
	Host string
}

// Translate turns one event into ACP JSON-RPC messages that plans.Service.Apply applies
// unchanged, in one batch on a fresh stream, starting with an initialize exchange naming Amp.
// A todo list is taken from tool.result of todo_write when the call is done (the list Amp
// kept), not from tool.call (a call that may still be refused).
func Translate(ev Event, st State) ([]json.RawMessage, error) {
	if ev.ThreadID == "" {
		return nil, ErrNoThread
	}
	b := &batch{agentkit.Batch{SID: SessionKey(ev.ThreadID), IDPrefix: "amp-"}}
	b.Initialize("plandash-plugin", map[string]any{"name": AgentName, "title": AgentTitle})
	if st.Announce || ev.Name == EventSessionStart {
		host := ev.Host
		if host == "" {
			host = st.Host
		}
		meta := map[string]any{"host": hookkit.Truncate(host, 256), "agentSessionId": hookkit.Truncate(ev.ThreadID, 256), "via": plans.ViaHooks}
		b.NewSession(hookkit.Truncate(ev.Cwd, 4096), meta)
	}
	switch ev.Name {
	case EventSessionStart:
		b.message(ev, "Thread started")
	case EventAgentStart:
		b.Request("session/prompt", map[string]any{"sessionId": b.SID,
			"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(ev.Message, maxPromptText)}}}, nil)
	case EventAgentEnd:
		text := "Turn ended"
		if ev.Status != "" && ev.Status != "done" {
			text += " (" + hookkit.Truncate(ev.Status, 32) + ")"
		}
		b.message(ev, text)
	case EventToolResult:
		if ev.Tool != ToolTodoWrite || ev.Status != "done" {
			b.raw(ev)
			break
		}
		todos, err := Todos(ev.Input)
		switch {
		case err != nil:
			b.raw(ev)
		case len(todos) == 0:
			b.Update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
		default:
			b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos, "entries": TodoEntries(todos)}})
		}
	case EventToolCall:
		// The list shows once the call is done (tool.result); the call only counts.
	default:
		b.raw(ev)
	}
	return b.Out, nil
}

// batch is agentkit.Batch, with the messages only Amp's events make.
type batch struct{ agentkit.Batch }

// message adds an agent message whose id keeps two events apart.
func (b *batch) message(ev Event, text string) {
	h := sha256.Sum256(ev.Raw)
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "amp-" + hex.EncodeToString(h[:8]),
		"content": map[string]any{"type": "text", "text": text}})
}

// raw keeps an event plandash does not interpret, bounded, as an extension update.
func (b *batch) raw(ev Event) {
	v := bytes.TrimSpace(ev.Raw)
	if len(v) > maxRawEvent {
		v, _ = json.Marshal(map[string]any{"truncated": true, "bytes": len(v), "preview": hookkit.Truncate(string(v), maxRawEvent/2)})
	}
	b.Update(map[string]any{"sessionUpdate": "_amp_event", "event": hookkit.Truncate(ev.Name, 64), "tool": hookkit.Truncate(ev.Tool, 256), "payload": json.RawMessage(v)})
}

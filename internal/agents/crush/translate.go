package crush

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on what one event puts into the session.
const (
	MaxTodos      = 200
	maxTodoText   = 1 << 10
	maxRawEvent   = 32 << 10
	maxStatusText = 64
)

// ErrNoSession is returned for a payload without a session id: its updates cannot be placed.
var ErrNoSession = errors.New("crush hook payload: session_id is missing")

// State is what translating an event needs besides the event itself.
type State struct {
	// Announce names the session: agent, cwd, host and Crush's own id. Set it on the first
	// event plandash sees of a session.
	Announce bool
	// Host is the machine's name, recorded with the session.
	Host string
}

// Translate turns one hook event into ACP JSON-RPC messages that plans.Service.Apply applies
// unchanged, in one batch on a fresh stream: the session, and the todo list of a todos call (a
// todos call without a list is kept raw and bounded in the session's activity).
func Translate(ev Event, st State) ([]json.RawMessage, error) {
	if ev.SessionID == "" {
		return nil, ErrNoSession
	}
	b := &batch{agentkit.Batch{SID: SessionKey(ev.SessionID), IDPrefix: "crush-"}}
	b.Initialize("plandash-hook", map[string]any{"name": AgentName, "title": AgentTitle})
	if st.Announce {
		b.NewSession(ev.Cwd, map[string]any{"host": st.Host, "agentSessionId": ev.SessionID, "via": plans.ViaHooks})
	}
	todos, ok := Todos(ev.ToolInput)
	switch {
	case ev.ToolName != ToolTodos:
		// A question shows as a wait of its own (Service.ask), a call held for permission as
		// its request at the gate; Crush reports no call's end, so none shows as a tool call,
		// and its input (an edit's new text is the project's code) is not kept.
	case !ok:
		b.Update(map[string]any{"sessionUpdate": "_crush_hook", "hookEventName": ev.Event, "toolName": ev.ToolName,
			"event": bounded(ev.Raw, maxRawEvent)})
	case len(todos) == 0:
		b.Update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
	default:
		b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos,
			"entries": TodoEntries(todos)}})
	}
	return b.Out, nil
}

// Todo is one entry of the todos tool's input (Crush's internal/agent/tools/todos.go).
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"active_form"`
}

// Todos reads the todos tool's input, bounded: at most MaxTodos entries, each cut. Entries that
// are not objects are skipped; ok is false when there is no todos array.
func Todos(input json.RawMessage) ([]Todo, bool) {
	var in struct {
		Todos []json.RawMessage `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil || in.Todos == nil {
		return nil, false
	}
	out := make([]Todo, 0, min(len(in.Todos), MaxTodos))
	for _, raw := range in.Todos {
		if len(out) == MaxTodos {
			break
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			continue
		}
		var t Todo
		_ = json.Unmarshal(m["content"], &t.Content)
		_ = json.Unmarshal(m["status"], &t.Status)
		_ = json.Unmarshal(m["active_form"], &t.ActiveForm)
		t.Content, t.ActiveForm = hookkit.Truncate(t.Content, maxTodoText), hookkit.Truncate(t.ActiveForm, maxTodoText)
		t.Status = hookkit.Truncate(t.Status, maxStatusText)
		out = append(out, t)
	}
	return out, true
}

// TodoEntries maps todos onto ACP plan entries; Crush's statuses (pending, in_progress,
// completed) are ACP's. Anything else becomes a "_"-prefixed custom value, and the present-
// continuous label is kept in _meta.crush.activeForm.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		var meta json.RawMessage
		if t.ActiveForm != "" {
			meta, _ = json.Marshal(map[string]any{"crush": map[string]string{"activeForm": t.ActiveForm}})
		}
		out = append(out, plans.Entry{Content: t.Content, Priority: "medium", Status: wireStatus(t.Status), Meta: meta})
	}
	return out
}

func wireStatus(s string) string {
	switch s {
	case "":
		return plans.StatusPending
	case plans.StatusPending, plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled:
		return s
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}

// batch is agentkit.Batch, with the messages only Crush's events make.
type batch struct{ agentkit.Batch }

// bounded returns v when it is at most max bytes, else a small object saying what was cut.
func bounded(v json.RawMessage, max int) json.RawMessage {
	v = bytes.TrimSpace(v)
	if len(v) <= max {
		return v
	}
	out, _ := json.Marshal(map[string]any{"truncated": true, "bytes": len(v), "preview": hookkit.Truncate(string(v), max/2)})
	return out
}

package acp

import (
	"encoding/json"
	"strings"
)

// Cursor's ACP extension methods (cursor.com/docs/cli/acp, spec/agents.md §5). Both travel from
// the agent (`agent acp`) to the client.
const (
	// MethodCursorUpdateTodos carries the agent's todo list, as a notification or a request.
	MethodCursorUpdateTodos = "cursor/update_todos"
	// MethodCursorCreatePlan is a blocking request: the agent waits for the plan's acceptance,
	// answered with a nested outcome (CursorPlanOutcome).
	MethodCursorCreatePlan = "cursor/create_plan"
)

// CursorTodo is one item of a Cursor todo list. Status is normalised (CursorStatus).
type CursorTodo struct {
	ID      string
	Content string
	Status  string
}

// CursorTodos is the params of cursor/update_todos. SessionID is "" when Cursor left it out
// (it often does: the connection has one session at a time).
type CursorTodos struct {
	SessionID  string
	ToolCallID string
	// Merge says the todos update the list held so far by id, rather than replace it.
	Merge bool
	Todos []CursorTodo
}

// CursorPlan is the params of cursor/create_plan.
type CursorPlan struct {
	SessionID  string
	ToolCallID string
	Name       string
	Overview   string
	Plan       string // markdown
	Todos      []CursorTodo
}

// DecodeCursorTodos decodes cursor/update_todos params. It fails only when params is not an
// object or todos is not an array; a todo without content is skipped.
func DecodeCursorTodos(params json.RawMessage) (CursorTodos, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return CursorTodos{}, err
	}
	var f [4][]byte
	Lookup(b, f[:], "sessionId", "toolCallId", "merge", "todos")
	if !IsArray(f[3]) {
		return CursorTodos{}, &DecodeError{Path: "todos", Message: notArray(f[3])}
	}
	t := CursorTodos{Merge: string(f[2]) == "true", Todos: cursorTodos(f[3])}
	t.SessionID, _ = Unquote(f[0])
	t.ToolCallID, _ = Unquote(f[1])
	return t, nil
}

// DecodeCursorPlan decodes cursor/create_plan params. It fails only when params is not an
// object; every member is optional, since a plan the person cannot read must still be
// answerable.
func DecodeCursorPlan(params json.RawMessage) (CursorPlan, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return CursorPlan{}, err
	}
	var f [6][]byte
	Lookup(b, f[:], "sessionId", "toolCallId", "name", "overview", "plan", "todos")
	var p CursorPlan
	p.SessionID, _ = Unquote(f[0])
	p.ToolCallID, _ = Unquote(f[1])
	p.Name, _ = Unquote(f[2])
	p.Overview, _ = Unquote(f[3])
	p.Plan, _ = Unquote(f[4])
	if IsArray(f[5]) {
		p.Todos = cursorTodos(f[5])
	}
	return p, nil
}

func cursorTodos(arr []byte) []CursorTodo {
	out := make([]CursorTodo, 0, countElems(arr))
	for it := NewArrayIter(arr); ; {
		el, ok := it.Next()
		if !ok {
			return out
		}
		if !IsObject(el) {
			continue
		}
		var f [3][]byte
		Lookup(el, f[:], "id", "content", "status")
		content, ok := Unquote(f[1])
		if !ok {
			continue
		}
		id, ok := Unquote(f[0])
		if !ok && isNumber(f[0]) {
			id = string(f[0])
		}
		status, _ := Unquote(f[2])
		out = append(out, CursorTodo{ID: id, Content: content, Status: CursorStatus(status)})
	}
}

// CursorStatus maps a Cursor todo status onto a plan entry status: the TODO_STATUS_ prefix of
// its protobuf spelling is dropped and the rest lowercased; "" and "unspecified" are pending,
// and anything else unknown is kept as a custom "_" value, which plan decoders accept.
func CursorStatus(s string) string {
	s = strings.ToLower(strings.TrimPrefix(strings.ToUpper(s), "TODO_STATUS_"))
	switch s {
	case "", "unspecified":
		return "pending"
	case "pending", "in_progress", "completed", "cancelled":
		return s
	case "inprogress", "in-progress":
		return "in_progress"
	case "canceled":
		return "cancelled"
	case "done", "complete":
		return "completed"
	}
	if strings.HasPrefix(s, "_") {
		return s
	}
	return "_" + s
}

// Outcomes of cursor/create_plan.
const (
	CursorAccepted  = "accepted"
	CursorRejected  = "rejected"
	CursorCancelled = "cancelled"
)

// CursorPlanOutcome is the answer to cursor/create_plan.
type CursorPlanOutcome struct {
	Outcome string // accepted, rejected or cancelled
	PlanURI string // with accepted, optionally
	Reason  string // with rejected, optionally
}

// Result is the response's result, with the outcome nested as Cursor requires: a flat
// {"outcome":"accepted"} is read by Cursor as cancelled.
func (o CursorPlanOutcome) Result() json.RawMessage {
	inner := map[string]string{"outcome": o.Outcome}
	if o.Outcome == CursorAccepted && o.PlanURI != "" {
		inner["planUri"] = o.PlanURI
	}
	if o.Outcome == CursorRejected && o.Reason != "" {
		inner["reason"] = o.Reason
	}
	b, _ := json.Marshal(map[string]any{"outcome": inner})
	return b
}

// DecodeCursorPlanOutcome reads a cursor/create_plan result the way Cursor does: the outcome
// nested under "outcome". A flat outcome (a string) decodes as cancelled, as Cursor reads it,
// and so does an outcome other than accepted, rejected or cancelled.
func DecodeCursorPlanOutcome(result json.RawMessage) (CursorPlanOutcome, error) {
	b, err := ownObject("result", result)
	if err != nil {
		return CursorPlanOutcome{}, err
	}
	var f [1][]byte
	Lookup(b, f[:], "outcome")
	if !IsObject(f[0]) {
		if isString(f[0]) {
			return CursorPlanOutcome{Outcome: CursorCancelled}, nil
		}
		return CursorPlanOutcome{}, &DecodeError{Path: "outcome", Message: notObject(f[0])}
	}
	var o [3][]byte
	Lookup(f[0], o[:], "outcome", "planUri", "reason")
	s, _ := Unquote(o[0])
	switch s {
	case CursorAccepted:
		uri, _ := Unquote(o[1])
		return CursorPlanOutcome{Outcome: s, PlanURI: uri}, nil
	case CursorRejected:
		reason, _ := Unquote(o[2])
		return CursorPlanOutcome{Outcome: s, Reason: reason}, nil
	}
	return CursorPlanOutcome{Outcome: CursorCancelled}, nil
}

func notObject(v []byte) string {
	if v == nil {
		return "missing"
	}
	return "must be an object, not " + jsonType(v)
}

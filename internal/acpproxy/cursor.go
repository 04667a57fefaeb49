package acpproxy

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/plandash/plandash/internal/acp"
)

// Cursor's `agent acp` speaks some of its plans through extension methods of its own
// (spec/agents.md §5). The proxy forwards them untouched like everything else; on the side,
// cursor/update_todos becomes the session's checklist on the dashboard (here), and the
// blocking cursor/create_plan is offered at the dashboard's gate (permission.go).

// sessionTracker remembers the session the IDE last prompted or loaded: Cursor's extension
// frames often name none, and a connection has one session at a time in practice.
type sessionTracker struct {
	mu   sync.Mutex
	last string
}

// observeClient looks at a line the IDE sent; only session/prompt and session/load are read.
func (s *sessionTracker) observeClient(line []byte) {
	// The method first, read from the top of the frame: searching every line for both names
	// cost more than the rest of the tap's work together.
	if m := frameMethod(line); !methodIs(m, acp.MethodSessionPrompt) && !methodIs(m, acp.MethodSessionLoad) {
		return
	}
	var top [2][]byte
	acp.Find(acp.TrimSpace(line), top[:], "method", "params")
	if !acp.IsObject(top[1]) {
		return
	}
	if id, ok := acp.Unquote(member(top[1], "sessionId")); ok && id != "" {
		s.mu.Lock()
		s.last = id
		s.mu.Unlock()
	}
}

// session returns id, or the last session seen when id is "".
func (s *sessionTracker) session(id string) string {
	if id != "" {
		return id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// cursorTodos turns cursor/update_todos frames into whole v1 plans, as ACP's session/update
// carries them and the server already understands. Cursor may send only the changed todos
// (merge), so the list so far is kept per session.
type cursorTodos struct {
	sessions *sessionTracker
	mu       sync.Mutex
	lists    map[string][]acp.CursorTodo
}

// maxTodoSessions bounds the lists kept; a proxy serves one IDE connection, with few sessions.
const maxTodoSessions = 256

// planFrame returns the session/update plan that line (an agent's frame) amounts to, or nil
// when line is not a usable cursor/update_todos.
func (c *cursorTodos) planFrame(line []byte) []byte {
	b := acp.TrimSpace(line)
	if !acp.IsObject(b) || !acp.Valid(b) {
		return nil
	}
	var top [2][]byte
	acp.Lookup(b, top[:], "method", "params")
	if m, _ := acp.Unquote(top[0]); m != acp.MethodCursorUpdateTodos {
		return nil
	}
	p, err := acp.DecodeCursorTodos(top[1])
	if err != nil {
		return nil
	}
	sid := c.sessions.session(p.SessionID)
	if sid == "" {
		return nil // nowhere to show it
	}
	c.mu.Lock()
	if c.lists == nil {
		c.lists = map[string][]acp.CursorTodo{}
	}
	list := p.Todos
	if p.Merge {
		list = mergeTodos(c.lists[sid], p.Todos)
	}
	if _, ok := c.lists[sid]; !ok && len(c.lists) >= maxTodoSessions {
		clear(c.lists)
	}
	c.lists[sid] = list
	c.mu.Unlock()
	return todosPlanFrame(sid, list)
}

// mergeTodos updates old by id with upd; todos with a new id (or none) are appended.
func mergeTodos(old, upd []acp.CursorTodo) []acp.CursorTodo {
	out := append([]acp.CursorTodo(nil), old...)
	for _, u := range upd {
		i := -1
		if u.ID != "" {
			i = indexTodo(out, u.ID)
		}
		if i >= 0 {
			out[i] = u
		} else {
			out = append(out, u)
		}
	}
	return out
}

func indexTodo(list []acp.CursorTodo, id string) int {
	for i, t := range list {
		if t.ID == id {
			return i
		}
	}
	return -1
}

// todosPlanFrame is a v1 plan of the todos. Cursor gives no priorities; "medium" says nothing.
func todosPlanFrame(session string, todos []acp.CursorTodo) []byte {
	entries := make([]map[string]string, len(todos))
	for i, t := range todos {
		entries[i] = map[string]string{"content": t.Content, "priority": "medium", "status": t.Status}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": acp.MethodSessionUpdate, "params": map[string]any{
		"sessionId": session,
		"update": map[string]any{"sessionUpdate": acp.KindPlan, "entries": entries,
			"_meta": map[string]any{"plandash": map[string]any{"from": acp.MethodCursorUpdateTodos}}},
	}})
	return b
}

// Cursor plans at the gate: cursor/create_plan is offered to the broker as a permission request
// with two options, so the dashboard's inbox shows it (the markdown as an ExitPlanMode plan) and
// answers it with the same first-answer-wins machinery. The answer goes back to the agent in
// Cursor's nested form.
const (
	cursorAcceptOption = "accept"
	cursorRejectOption = "reject"
)

// cursorPlanRequest turns cursor/create_plan params into the permission request offered.
func cursorPlanRequest(id, params json.RawMessage, sessions *sessionTracker) (PermissionRequest, bool) {
	p, err := acp.DecodeCursorPlan(params)
	if err != nil {
		return PermissionRequest{}, false
	}
	sid := sessions.session(p.SessionID)
	title := "Cursor plan"
	if p.Name != "" {
		title = "Cursor plan: " + p.Name
	}
	callID := p.ToolCallID
	if callID == "" {
		callID = "cursor_create_plan_" + strings.Trim(string(id), `"`)
	}
	opts := []acp.PermissionOption{
		{OptionID: cursorAcceptOption, Name: "Accept the plan", Kind: "allow_once"},
		{OptionID: cursorRejectOption, Name: "Reject the plan", Kind: "reject_once"},
	}
	synth, _ := json.Marshal(map[string]any{
		"sessionId": sid,
		"toolCall": map[string]any{"toolCallId": callID, "title": title, "kind": "switch_mode", "status": "pending",
			"rawInput": map[string]any{"plan": cursorPlanMarkdown(p)}},
		"options": []map[string]string{
			{"optionId": cursorAcceptOption, "name": opts[0].Name, "kind": opts[0].Kind},
			{"optionId": cursorRejectOption, "name": opts[1].Name, "kind": opts[1].Kind},
		},
		"_meta": map[string]any{"plandash": map[string]any{"from": acp.MethodCursorCreatePlan, "params": params}},
	})
	return PermissionRequest{ID: id, SessionID: sid, Params: synth, Options: opts}, true
}

// cursorPlanMarkdown is the whole plan as one markdown document: name, overview, body, todos.
func cursorPlanMarkdown(p acp.CursorPlan) string {
	var b strings.Builder
	if p.Name != "" {
		b.WriteString("# " + p.Name + "\n\n")
	}
	if p.Overview != "" {
		b.WriteString(p.Overview + "\n\n")
	}
	if p.Plan != "" {
		b.WriteString(p.Plan + "\n\n")
	}
	if len(p.Todos) > 0 {
		b.WriteString("## Todos\n\n")
		for _, t := range p.Todos {
			mark := " "
			if t.Status == "completed" {
				mark = "x"
			}
			b.WriteString("- [" + mark + "] " + t.Content + "\n")
		}
	}
	return strings.TrimSpace(b.String())
}

// cursorOutcome maps a permission outcome on the synthetic options to Cursor's.
func cursorOutcome(o acp.PermissionOutcome) acp.CursorPlanOutcome {
	switch {
	case o.Outcome == "selected" && o.OptionID == cursorAcceptOption:
		return acp.CursorPlanOutcome{Outcome: acp.CursorAccepted}
	case o.Outcome == "selected" && o.OptionID == cursorRejectOption:
		reason := "Rejected on the plandash dashboard"
		if o.Feedback != "" {
			reason += ": " + o.Feedback // Cursor's reject has a reason: the feedback goes there
		}
		return acp.CursorPlanOutcome{Outcome: acp.CursorRejected, Reason: reason}
	}
	return acp.CursorPlanOutcome{Outcome: acp.CursorCancelled}
}

// permissionOutcome maps the IDE's answer to a Cursor plan back onto the synthetic options, so
// the dashboard shows what the IDE decided.
func permissionOutcome(result json.RawMessage) acp.PermissionOutcome {
	o, err := acp.DecodeCursorPlanOutcome(result)
	switch {
	case err != nil:
		return acp.PermissionOutcome{}
	case o.Outcome == acp.CursorAccepted:
		return acp.PermissionOutcome{Outcome: "selected", OptionID: cursorAcceptOption}
	case o.Outcome == acp.CursorRejected:
		return acp.PermissionOutcome{Outcome: "selected", OptionID: cursorRejectOption}
	}
	return acp.PermissionOutcome{Outcome: "cancelled"}
}

func cursorResultFrame(id json.RawMessage, o acp.PermissionOutcome) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": cursorOutcome(o).Result()})
	return b
}

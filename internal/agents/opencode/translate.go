package opencode

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/plans"
)

// batch builds the ACP JSON-RPC messages of one change, applied by plans.Service.Apply on a
// stream of its own, as the ingest API would.
type batch struct {
	sid string
	n   int
	out []json.RawMessage
}

// newBatch starts a batch with the initialize exchange naming the agent (OpenCode, or a fork)
// and, when info is not nil, the session/new that names the session's directory and host.
func newBatch(fl *Flavor, sessionID string, info *SessionInfo, host string) *batch {
	b := &batch{sid: fl.SessionKey(sessionID)}
	b.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}},
		"clientInfo": map[string]any{"name": "plandash-" + fl.Hook}},
		map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": fl.Name, "title": fl.Title}})
	if info != nil {
		if info.Host != "" {
			host = info.Host
		}
		meta := map[string]any{"host": host, "agentSessionId": sessionID}
		if info.Title != "" {
			meta["title"] = info.Title
		}
		if info.via != "" {
			meta["via"] = info.via
		}
		b.request("session/new", map[string]any{"cwd": info.Directory, "mcpServers": []any{}, "_meta": map[string]any{"plandash": meta}},
			map[string]any{"sessionId": b.sid})
	}
	return b
}

func (b *batch) add(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		return // only plain maps and strings go in: this cannot fail
	}
	b.out = append(b.out, line)
}

func (b *batch) request(method string, params, result any) {
	b.n++
	id := "opencode-" + strconv.Itoa(b.n)
	b.add(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if result != nil {
		b.add(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
}

func (b *batch) update(u map[string]any) {
	b.add(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": b.sid, "update": u}})
}

// todos publishes the session's whole list; an empty list retires the plan.
func (b *batch) todos(todos []Todo) {
	if len(todos) == 0 {
		b.update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
		return
	}
	b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos, "entries": TodoEntries(todos)}})
}

// planMode publishes plan_exit's plan with its state (proposed, approved, rejected).
func (b *batch) planMode(markdown, path, state string) {
	meta := map[string]any{"plandash": map[string]any{"planFilePath": path, "state": state}}
	b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanMode, "content": markdown, "_meta": meta}})
}

// TodoEntries maps OpenCode's todos onto ACP plan entries. Statuses and priorities are ACP's
// own words (pending/in_progress/completed/cancelled, high/medium/low); anything else becomes a
// "_"-prefixed custom value, which ACP allows, rather than an entry the decoder would skip.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		out = append(out, plans.Entry{Content: t.Content, Priority: word(t.Priority, "medium", "high", "medium", "low"),
			Status: word(t.Status, plans.StatusPending, plans.StatusPending, plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled)})
	}
	return out
}

func word(s, empty string, known ...string) string {
	if s == "" {
		return empty
	}
	for _, k := range known {
		if s == k {
			return s
		}
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}

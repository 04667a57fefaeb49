package claude

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// Todo is one TodoWrite entry.
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm,omitempty"`
}

// fields decodes a JSON object into a map; anything else gives an empty map, so readers below
// simply find nothing.
func fields(b json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// strField reads the first of keys that holds a non-empty string.
func strField(m map[string]json.RawMessage, keys ...string) (string, bool) {
	for _, k := range keys {
		var s string
		if v, ok := m[k]; ok && json.Unmarshal(v, &s) == nil {
			return s, true
		}
	}
	return "", false
}

// Todos reads TodoWrite's tool_input.todos. Entries that are not objects are skipped;
// activeForm is read in both spellings the model emits.
func Todos(input json.RawMessage) ([]Todo, bool) {
	m := fields(input)
	var raw []json.RawMessage
	if json.Unmarshal(m["todos"], &raw) != nil || raw == nil {
		return nil, false
	}
	out := make([]Todo, 0, len(raw))
	for _, r := range raw {
		e := fields(r)
		if e == nil {
			continue
		}
		var t Todo
		t.Content, _ = strField(e, "content", "subject")
		t.Status, _ = strField(e, "status")
		t.ActiveForm, _ = strField(e, "activeForm", "active_form")
		out = append(out, t)
	}
	return out, true
}

// TaskChange is a TaskCreate or TaskUpdate call as the model sent it (fields read defensively:
// Claude Code repairs id/task_id → taskId and active_form → activeForm only after the hooks ran).
// A nil pointer means the field was not sent.
type TaskChange struct {
	ID          string
	Subject     *string
	Description *string
	ActiveForm  *string
	Status      *string
	BlockedBy   []string
	Owner       *string
}

// ParseTaskChange reads TaskCreate/TaskUpdate input, and the id TaskCreate's output assigns
// (tool_response.task.id; the input of a create has none).
func ParseTaskChange(input, response json.RawMessage) TaskChange {
	m := fields(input)
	c := TaskChange{ID: idString(m, "taskId", "id", "task_id")}
	opt := func(keys ...string) *string {
		if s, ok := strField(m, keys...); ok {
			return &s
		}
		return nil
	}
	c.Subject = opt("subject")
	c.Description = opt("description")
	c.ActiveForm = opt("activeForm", "active_form")
	c.Status = opt("status")
	c.Owner = opt("owner")
	var blocked []string
	if json.Unmarshal(m["addBlockedBy"], &blocked) == nil {
		c.BlockedBy = blocked
	}
	if c.ID == "" {
		r := fields(response)
		c.ID = idString(fields(r["task"]), "id", "taskId")
		if c.ID == "" {
			c.ID = idString(r, "taskId", "task_id")
		}
	}
	return c
}

// PlanText is a plan-mode plan: the markdown and the file it was written to.
type PlanText struct {
	Markdown string
	FilePath string
}

// ExitPlan reads ExitPlanMode's plan: from tool_response (PostToolUse: plan, filePath) or from
// tool_input (PreToolUse, PermissionRequest: plan, planFilePath, injected by Claude Code).
func ExitPlan(input, response json.RawMessage) PlanText {
	var p PlanText
	if r := fields(response); r != nil {
		p.Markdown, _ = strField(r, "plan")
		p.FilePath, _ = strField(r, "filePath", "planFilePath")
	}
	in := fields(input)
	if p.Markdown == "" {
		p.Markdown, _ = strField(in, "plan")
	}
	if p.FilePath == "" {
		p.FilePath, _ = strField(in, "planFilePath", "filePath")
	}
	return p
}

// bounded returns v when it is at most max bytes, else a small object saying what was cut, so
// a tool that read a large file does not put megabytes into every page of the session.
func bounded(v json.RawMessage, max int) json.RawMessage {
	v = bytes.TrimSpace(v)
	if len(v) <= max {
		return v
	}
	preview := hookkit.Truncate(string(v), max/2)
	b, _ := json.Marshal(map[string]any{"truncated": true, "bytes": len(v), "preview": preview})
	return b
}

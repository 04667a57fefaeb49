package droid

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on a todo list: Droid itself allows 50 items of 500 characters; these leave room and
// still bound what one event can put on the page.
const (
	maxTodos     = 200
	maxTodoBytes = 2 << 10
)

// Todo is one TodoWrite item.
type Todo struct {
	Content string
	Status  string // as Droid wrote it: pending, in_progress, completed, or another word
}

// Todos reads TodoWrite's tool_input. Droid's own shape is a string of numbered lines,
// "1. [completed] Read the code"; a JSON array of {"content","status"} objects, as a string or
// as the value itself, is read too (Droid parses that form as well). Blank lines are skipped, a
// line without a [status] is pending, and the list is cut at maxTodos items. An input without
// todos is an error saying so.
func Todos(input json.RawMessage) ([]Todo, error) {
	var in struct {
		Todos json.RawMessage `json:"todos"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("TodoWrite input is not an object: %w", err)
	}
	v := strings.TrimSpace(string(in.Todos))
	if v == "" || v == "null" {
		return nil, errors.New("TodoWrite input has no todos")
	}
	if v[0] == '[' {
		return todoArray([]byte(v))
	}
	var s string
	if err := json.Unmarshal(in.Todos, &s); err != nil {
		return nil, fmt.Errorf("TodoWrite todos is neither text nor a list: %w", err)
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") {
		if out, err := todoArray([]byte(t)); err == nil {
			return out, nil
		}
	}
	return todoLines(s), nil
}

// todoLines reads the numbered-lines form.
func todoLines(s string) []Todo {
	out := []Todo{}
	for line := range strings.Lines(s) {
		if len(out) == maxTodos {
			break
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		// "12. " or "12) " numbers the line; order is the line's position, not its number.
		if i := strings.IndexAny(line, ".)"); i > 0 && i <= 4 && isDigits(line[:i]) {
			line = strings.TrimSpace(line[i+1:])
		}
		line = strings.TrimPrefix(strings.TrimPrefix(line, "- "), "* ")
		status := plans.StatusPending
		if rest, ok := strings.CutPrefix(line, "["); ok {
			if word, text, ok := strings.Cut(rest, "]"); ok && len(word) <= 32 {
				status, line = strings.ToLower(strings.TrimSpace(word)), strings.TrimSpace(text)
			}
		}
		if line == "" {
			continue
		}
		out = append(out, Todo{Content: hookkit.Truncate(line, maxTodoBytes), Status: status})
	}
	return out
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// todoArray reads the JSON-list form; entries that are not objects with content are skipped.
func todoArray(b []byte) ([]Todo, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("TodoWrite todos is not a JSON list: %w", err)
	}
	out := []Todo{}
	for _, r := range raw {
		if len(out) == maxTodos {
			break
		}
		var t struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		}
		if json.Unmarshal(r, &t) != nil || strings.TrimSpace(t.Content) == "" {
			continue
		}
		if t.Status == "" {
			t.Status = plans.StatusPending
		}
		out = append(out, Todo{Content: hookkit.Truncate(t.Content, maxTodoBytes), Status: hookkit.Truncate(t.Status, 32)})
	}
	return out, nil
}

// TodoEntries maps Droid's todos onto ACP plan entries. A status ACP does not have becomes a
// "_"-prefixed custom value, which ACP allows, and Droid's own word is kept in _meta.droid.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		meta, _ := json.Marshal(map[string]any{"droid": map[string]string{"status": t.Status}})
		out = append(out, plans.Entry{Content: t.Content, Priority: "medium", Status: wireStatus(t.Status), Meta: meta})
	}
	return out
}

func wireStatus(s string) string {
	switch s {
	case "", plans.StatusPending:
		return plans.StatusPending
	case plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled:
		return s
	case "in-progress", "in progress":
		return plans.StatusInProgress
	case "done":
		return plans.StatusCompleted
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}

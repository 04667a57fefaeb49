package copilot

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"

	_ "modernc.org/sqlite" // the "sqlite" driver, to read Copilot CLI's session database read-only
)

// Bounds on the todo list read from a session database: Copilot's lists are tens of rows.
const (
	MaxTodos     = 200
	maxTodoTitle = 1 << 10
	maxTodoDesc  = 4 << 10
)

// Todo is one row of Copilot CLI's todos table (its sql tool's description: id, title,
// description, status pending/in_progress/done/blocked). DependsOn lists the ids todo_deps
// says it waits for.
type Todo struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Status      string   `json:"status"`
	DependsOn   []string `json:"dependsOn,omitempty"`
}

// TodoList is the whole table, as `plandash hook copilot` read it after the model changed it.
type TodoList struct {
	Todos []Todo `json:"todos"`
	// Truncated says the table held more than MaxTodos rows; only the first were read.
	Truncated bool `json:"truncated,omitempty"`
}

// bound cuts a list that came from outside to what ReadTodos would have read.
func (l *TodoList) bound() {
	if len(l.Todos) > MaxTodos {
		l.Todos, l.Truncated = l.Todos[:MaxTodos], true
	}
	for i := range l.Todos {
		t := &l.Todos[i]
		t.ID, t.Title = hookkit.Truncate(t.ID, maxTodoTitle), hookkit.Truncate(t.Title, maxTodoTitle)
		t.Description, t.Status = hookkit.Truncate(t.Description, maxTodoDesc), hookkit.Truncate(t.Status, 64)
		if len(t.DependsOn) > MaxTodos {
			t.DependsOn = t.DependsOn[:MaxTodos]
		}
		for j := range t.DependsOn {
			t.DependsOn[j] = hookkit.Truncate(t.DependsOn[j], maxTodoTitle)
		}
	}
}

// todosQuery matches an sql call that may have changed the todo list.
var todosQuery = regexp.MustCompile(`(?i)\b(todos|todo_deps)\b`)

// TouchesTodos reports whether an sql tool call's query names the todos tables, so the list
// is worth reading again after it ran.
func TouchesTodos(args json.RawMessage) bool {
	return todosQuery.MatchString(argString(args, "query"))
}

// SessionDir is where Copilot CLI keeps a session's state: plan.md, session.db and
// events.jsonl under $COPILOT_HOME/session-state/<id> (~/.copilot when COPILOT_HOME is unset).
// It returns "" for an id that is not one plain path element.
func SessionDir(copilotHome, sessionID string) string {
	if copilotHome == "" || sessionID == "" || sessionID == "." || !filepath.IsLocal(sessionID) || strings.ContainsAny(sessionID, `/\`) {
		return ""
	}
	return filepath.Join(copilotHome, "session-state", sessionID)
}

// ReadTodos reads the todos table of the session database at path, read-only and bounded. A
// database without the table yet is an empty list.
func ReadTodos(ctx context.Context, path string) (TodoList, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return TodoList{}, err
	}
	if !st.Mode().IsRegular() {
		return TodoList{}, fmt.Errorf("%s is not a regular file", path)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(2000)")
	if err != nil {
		return TodoList{}, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id, title, COALESCE(description, ''), COALESCE(status, 'pending') FROM todos ORDER BY rowid LIMIT ?`, MaxTodos+1)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return TodoList{Todos: []Todo{}}, nil
		}
		return TodoList{}, fmt.Errorf("%s: read todos: %w", path, err)
	}
	defer rows.Close()
	out := TodoList{Todos: []Todo{}}
	index := map[string]int{}
	for rows.Next() {
		var t Todo
		if err := rows.Scan(&t.ID, &t.Title, &t.Description, &t.Status); err != nil {
			return TodoList{}, fmt.Errorf("%s: read todos: %w", path, err)
		}
		if len(out.Todos) == MaxTodos {
			out.Truncated = true
			break
		}
		t.Title, t.Description = hookkit.Truncate(t.Title, maxTodoTitle), hookkit.Truncate(t.Description, maxTodoDesc)
		index[t.ID] = len(out.Todos)
		out.Todos = append(out.Todos, t)
	}
	if err := rows.Err(); err != nil {
		return TodoList{}, fmt.Errorf("%s: read todos: %w", path, err)
	}
	rows.Close()
	deps, err := db.QueryContext(ctx, `SELECT todo_id, depends_on FROM todo_deps ORDER BY rowid LIMIT ?`, 4*MaxTodos)
	if err != nil {
		return out, nil // no todo_deps table: no dependencies
	}
	defer deps.Close()
	for deps.Next() {
		var id, on string
		if deps.Scan(&id, &on) != nil {
			continue
		}
		if i, ok := index[id]; ok {
			out.Todos[i].DependsOn = append(out.Todos[i].DependsOn, hookkit.Truncate(on, maxTodoTitle))
		}
	}
	return out, nil
}

// TodoEntries maps the todos onto ACP plan entries. "done" is completed; ACP has no "blocked",
// so a blocked todo shows as pending, with Copilot's own status, id, description and
// dependencies kept in _meta.copilot.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, len(todos))
	for _, t := range todos {
		meta := map[string]any{"id": t.ID, "status": t.Status}
		if t.Description != "" {
			meta["description"] = t.Description
		}
		if len(t.DependsOn) > 0 {
			meta["dependsOn"] = t.DependsOn
		}
		m, _ := json.Marshal(map[string]any{"copilot": meta})
		content := t.Title
		if content == "" {
			content = t.ID
		}
		out = append(out, plans.Entry{Content: content, Priority: "medium", Status: wireStatus(t.Status), Meta: m})
	}
	return out
}

func wireStatus(s string) string {
	switch s {
	case "", "blocked", plans.StatusPending:
		return plans.StatusPending
	case "done", plans.StatusCompleted:
		return plans.StatusCompleted
	case plans.StatusInProgress, plans.StatusCancelled:
		return s
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + s
}

package copilot

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copilotDB makes a session database with Copilot CLI's todos tables (their schema as 1.0.102
// creates them) and runs stmts on it.
func copilotDB(t *testing.T, stmts ...string) string {
	path := filepath.Join(t.TempDir(), "session.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range append([]string{`CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT,
		status TEXT DEFAULT 'pending' CHECK(status IN ('pending', 'in_progress', 'done', 'blocked')),
		created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now')))`,
		`CREATE TABLE todo_deps (todo_id TEXT NOT NULL, depends_on TEXT NOT NULL, PRIMARY KEY (todo_id, depends_on))`}, stmts...) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

func TestReadTodos(t *testing.T) {
	ctx := context.Background()
	path := copilotDB(t, `INSERT INTO todos (id, title, description, status) VALUES ('b', 'Second', NULL, 'blocked'), ('a', 'First', 'd', 'done')`,
		`INSERT INTO todo_deps VALUES ('b', 'a')`)
	l, err := ReadTodos(ctx, path)
	if err != nil || len(l.Todos) != 2 || l.Todos[0].ID != "b" || l.Todos[0].DependsOn[0] != "a" || l.Todos[1].Status != "done" || l.Truncated {
		t.Fatalf("%+v %v", l, err)
	}
	if e := TodoEntries(l.Todos); e[0].Status != "pending" || e[1].Status != "completed" {
		t.Errorf("entries %+v", e)
	}

	var many []string
	for i := range MaxTodos + 5 {
		many = append(many, fmt.Sprintf("('t%d', '%s', '', 'pending')", i, strings.Repeat("x", 3000)))
	}
	l, err = ReadTodos(ctx, copilotDB(t, "INSERT INTO todos (id, title, description, status) VALUES "+strings.Join(many, ",")))
	if err != nil || len(l.Todos) != MaxTodos || !l.Truncated || len(l.Todos[0].Title) > maxTodoTitle+4 {
		t.Errorf("a long list: %d todos, truncated %v, %v", len(l.Todos), l.Truncated, err)
	}

	empty := filepath.Join(t.TempDir(), "empty.db")
	if db, err := sql.Open("sqlite", empty); err == nil {
		_, _ = db.Exec(`CREATE TABLE other (x)`)
		db.Close()
	}
	if l, err := ReadTodos(ctx, empty); err != nil || len(l.Todos) != 0 {
		t.Errorf("no todos table yet: %+v %v", l, err)
	}
	link := filepath.Join(t.TempDir(), "link.db")
	_ = os.Symlink(path, link)
	if _, err := ReadTodos(ctx, link); err == nil {
		t.Error("a symlink was read")
	}
	if _, err := ReadTodos(ctx, filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Error("a missing database gave no error")
	}
}

func TestSessionDir(t *testing.T) {
	for id, want := range map[string]string{"abc": "/h/session-state/abc", "": "", "../x": "", "a/b": "", ".": ""} {
		if got := SessionDir("/h", id); got != want {
			t.Errorf("SessionDir(%q) = %q, want %q", id, got, want)
		}
	}
}

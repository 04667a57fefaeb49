//go:build unix

package opencode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

func storagePlans(t *testing.T) *plans.Service {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return plans.NewService(db.Plans(), plans.Config{Idle: time.Hour})
}

// TestRealOpenCodeStorage: the real OpenCode CLI (1.18) runs a todowrite against the scripted
// model and exits; a Storage reading its database read-only shows the session with its
// directory, todo list and cost, once, and the database is left as it was.
func TestRealOpenCodeStorage(t *testing.T) {
	needAgents(t)
	srv := agenttest.NewModelServer(t)
	o := agenttest.NewOpenCode(t, srv, nil)
	todos := []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"}}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}}, agenttest.Turn{Text: "Agenttest turn over."})
	if res := o.Run(3*time.Minute, "plan the parser"); res.Err != nil {
		t.Fatalf("opencode run: %v\nstderr: %s\nrequests:\n%s", res.Err, res.Stderr, srv.Summary())
	}
	dbPath := filepath.Join(o.Home, ".local", "share", "opencode", "opencode.db")
	before, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	p := storagePlans(t)
	st := NewStorage(dbPath, p, "devbox", 0, nil, nil)
	if err := st.poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	list, err := p.Sessions(context.Background(), 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v %v", list, err)
	}
	s := list[0]
	if !strings.HasPrefix(s.ID, SessionPrefix) || s.Cwd != o.Dir || !slices.Equal(s.Via, []string{plans.ViaTranscript}) {
		t.Errorf("session %+v", s)
	}
	if u := s.Usage; u == nil || u.InputTokens != 20 || u.OutputTokens != 20 || u.Model == "" || u.Cost == nil {
		t.Errorf("usage %+v", s.Usage)
	}
	d, err := p.Session(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, pl := range d.Plans {
		if pl.ID == PlanTodos {
			for _, e := range pl.Entries {
				got += e.Content + "=" + e.Status + "/" + e.Priority
			}
		}
	}
	if got != "Parse=in_progress/high" {
		t.Errorf("todos %q", got)
	}
	// Nothing changed since: the next poll applies nothing (no new revision).
	if err := st.poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d2, _ := p.Session(context.Background(), s.ID); d2.Session.Seq != d.Session.Seq {
		t.Errorf("a poll without changes changed the session")
	}
	after, err := os.ReadFile(dbPath)
	if err != nil || string(after) != string(before) {
		t.Errorf("the database changed under a read-only reader (%v)", err)
	}
}

// TestStorageRefusesOddFiles: a FIFO or a symlink where the database should be is not opened
// (the poll says why); a missing database is no error.
func TestStorageRefusesOddFiles(t *testing.T) {
	dir := t.TempDir()
	p := storagePlans(t)
	if err := NewStorage(filepath.Join(dir, "none.db"), p, "h", 0, nil, nil).poll(context.Background()); err != nil {
		t.Errorf("missing database: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink("/etc/passwd", link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link} {
		done := make(chan error, 1)
		go func() { done <- NewStorage(path, p, "h", 0, nil, nil).poll(context.Background()) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the poll blocked", path)
		}
	}
}

package droid

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
)

const fileSession = "84ac6111-9248-47ca-8a4f-b2fdc858be59"

// copySessions copies testdata/sessions into a temp dir, with old replaced by new in the
// file's text and name when old is set, and returns the directory.
func copySessions(t *testing.T, old, new string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "sessions", "-tmp-project", fileSession+".jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	name := fileSession
	if old != "" {
		b, name = []byte(strings.ReplaceAll(string(b), old, new)), new
	}
	if err := os.MkdirAll(filepath.Join(dir, "-tmp-project"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A line cut off mid-write and a foreign line are skipped, never fatal.
	b = append(b, []byte("not json\n{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":7}}\n{\"type\":\"todo_st")...)
	if err := os.WriteFile(filepath.Join(dir, "-tmp-project", name+".jsonl"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// discover runs a Discoverer over dir until ok reports the plans service has what it needs.
func discover(t *testing.T, svc *Service, dir string, ok func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- svc.NewDiscoverer(dir, DiscoverOptions{StateDir: t.TempDir(), Rescan: 100 * time.Millisecond}).Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("the session file's plans never showed")
}

// TestDiscover: the session file the real Droid wrote shows its session, its final todo list,
// its approved spec and its prompt, with nothing installed.
func TestDiscover(t *testing.T) {
	p := agenttest.Plans(t)
	svc := NewService(p, nil, Config{Host: "box"})
	key := SessionKey(fileSession)
	ctx := context.Background()
	discover(t, svc, copySessions(t, "", ""), func() bool {
		todos, err := p.Plan(ctx, key, PlanTodos)
		return err == nil && len(todos.Entries) == 2 && todos.Entries[0].Status == plans.StatusCompleted
	})
	spec, err := p.Plan(ctx, key, PlanSpec)
	if err != nil || spec.Markdown != "# Plan\n1. do it" || !strings.Contains(string(spec.Meta), `"approved"`) || !strings.Contains(string(spec.Meta), "My plan") {
		t.Errorf("spec = %+v, %v", spec, err)
	}
	sess, err := p.SessionOnly(ctx, key)
	if err != nil || !strings.HasSuffix(sess.Cwd, "/project") || !slices.Contains(sess.Via, plans.ViaTranscript) {
		t.Errorf("session = %+v, %v", sess, err)
	}
	acts, err := p.RecentActivity(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, a := range acts {
		texts = append(texts, a.Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "plan it") || strings.Contains(all, "system-reminder") {
		t.Errorf("activity = %q", all)
	}
}

// TestDiscoverAndHooksOneSession: a session seen by its hooks and by its file is one session,
// its todo list one plan.
func TestDiscoverAndHooksOneSession(t *testing.T) {
	p := agenttest.Plans(t)
	svc := NewService(p, nil, Config{Host: "box"})
	ctx := context.Background()
	var hookSession string
	for _, b := range captured(t) {
		if _, err := svc.Handle(ctx, b); err != nil {
			t.Fatal(err)
		}
		ev, _ := Decode(b)
		hookSession = ev.SessionID
	}
	key := SessionKey(hookSession)
	discover(t, svc, copySessions(t, fileSession, hookSession), func() bool {
		todos, err := p.Plan(ctx, key, PlanTodos)
		return err == nil && len(todos.Entries) == 2 && todos.Entries[0].Status == plans.StatusCompleted
	})
	sess, err := p.SessionOnly(ctx, key)
	if err != nil || !slices.Contains(sess.Via, plans.ViaHooks) || !slices.Contains(sess.Via, plans.ViaTranscript) {
		t.Errorf("session = %+v, %v", sess, err)
	}
	all, err := p.Sessions(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range all {
		if strings.HasPrefix(s.ID, SessionPrefix) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d Droid sessions, want 1: %+v", n, all)
	}
}

// FuzzSessionLine: any line is refused with an error naming it, or read into bounded lines.
func FuzzSessionLine(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "sessions", "-tmp-project", fileSession+".jsonl"))
	if err == nil {
		for line := range strings.Lines(string(b)) {
			f.Add([]byte(strings.TrimSpace(line)))
		}
	}
	f.Add([]byte(`{"type":"todo_state","todos":{"todos":"x"}}`))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"{\"approved\":true}"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ls, err := DecodeSessionLine(b, 3)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line 3: ") {
				t.Fatalf("error without its place: %v", err)
			}
			return
		}
		for _, l := range ls {
			if len(l.Text) > maxPlanText+4 || len(l.Todos) > maxTodos || len(l.ID) > 255+4 || l.Kind == "" {
				t.Fatalf("line %+v", l)
			}
		}
	})
}

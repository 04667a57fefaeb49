package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// runTailer runs a Tailer until the returned stop is called (or the test ends).
func runTailer(t *testing.T, tl *Tailer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tl.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("Run did not return after its context ended")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitFor polls cond until it holds, failing the test with its last word after timeout (a
// bound on failure, not an assertion on speed).
func waitFor(t *testing.T, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v: %s", timeout, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// planState reads a session's plan as "content=status,…" and its revision ("" when missing).
func planState(p *plans.Service, sid, planID string) (string, int) {
	d, err := p.Session(context.Background(), sid)
	if err != nil {
		return "", 0
	}
	for _, pl := range d.Plans {
		if pl.ID == planID {
			var parts []string
			for _, e := range pl.Entries {
				parts = append(parts, e.Content+"="+e.Status)
			}
			if pl.Markdown != "" {
				parts = append(parts, pl.Markdown)
			}
			return strings.Join(parts, ","), pl.Revision
		}
	}
	return "", 0
}

func appendFile(t *testing.T, path string, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func planLine(callID string, steps ...string) string {
	var plan []map[string]string
	for _, s := range steps {
		step, status, _ := strings.Cut(s, "=")
		plan = append(plan, map[string]string{"step": step, "status": status})
	}
	args, _ := json.Marshal(map[string]any{"plan": plan})
	b, _ := json.Marshal(map[string]any{"timestamp": "2026-11-23T23:05:01.825Z", "type": "response_item", "payload": map[string]any{
		"type": "function_call", "name": "update_plan", "call_id": callID, "arguments": string(args)}})
	return string(b) + "\n"
}

func metaLine(thread, cwd string) string {
	return fmt.Sprintf(`{"timestamp":"2026-11-24T00:00:00Z","type":"session_meta","payload":{"id":%q,"cwd":%q}}`+"\n", thread, cwd)
}

// TestTailerFollowsAndResumes writes a real rollout into a sessions tree line by line (a line in
// two writes), adds a new date directory with a second session, restarts the tailer and checks
// that only what was appended meanwhile is applied, through a real plans.Service on SQLite.
func TestTailerFollowsAndResumes(t *testing.T) {
	sessions := t.TempDir()
	state := t.TempDir()
	p := newPlans(t)
	// Rescans only every hour: everything here must arrive through file-system events.
	opts := TailerOptions{StateDir: state, Host: "devbox", Rescan: time.Hour}
	day := mkdir(t, filepath.Join(sessions, "2026", "11", "23"))
	path := filepath.Join(day, "rollout-2026-11-23T23-05-01-"+realThread+".jsonl")
	stop := runTailer(t, NewTailer(sessions, ApplyTo(p, nil), opts))

	sid := SessionKey(realThread)
	for _, line := range strings.SplitAfter(string(fixture(t, "exec_update_plan.jsonl")), "\n") {
		if line == "" {
			continue
		}
		if strings.Contains(line, `"name":"update_plan"`) {
			half := len(line) / 2
			appendFile(t, path, line[:half])
			time.Sleep(100 * time.Millisecond) // give a wrong reader the chance to read half a line
			if s, _ := planState(p, sid, PlanItems); s != "" {
				t.Fatalf("a partial line was applied: %s", s)
			}
			appendFile(t, path, line[half:])
			continue
		}
		appendFile(t, path, line)
	}
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, sid, PlanProposed)
		return s == "# Env override\n\n1. Read\n2. Write", "proposed plan " + s
	})
	if s, rev := planState(p, sid, PlanItems); s != "Read config loader=completed,Add env override=in_progress" || rev != 1 {
		t.Errorf("items plan %q rev %d", s, rev)
	}

	// A new day's directory, and a second session in it.
	second := "01a20aa7-0000-7000-8000-000000000002"
	day2 := mkdir(t, filepath.Join(sessions, "2026", "11", "24"))
	path2 := filepath.Join(day2, "rollout-2026-11-24T00-00-00-"+second+".jsonl")
	appendFile(t, path2, metaLine(second, "/work/other")+planLine("c1", "Only step=pending"))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(second), PlanItems)
		return s == "Only step=pending", "second session plan " + s
	})
	stop()
	if _, err := os.Stat(filepath.Join(state, StateFile)); err != nil {
		t.Fatalf("no state file: %v", err)
	}

	// Appended while plandash was down; then a restart.
	appendFile(t, path, planLine("c9", "Read config loader=completed", "Add env override=completed"))
	runTailer(t, NewTailer(sessions, ApplyTo(p, nil), opts))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, rev := planState(p, sid, PlanItems)
		return s == "Read config loader=completed,Add env override=completed", fmt.Sprintf("after restart %q rev %d", s, rev)
	})
	h, err := p.History(context.Background(), sid, PlanItems)
	if err != nil || len(h) != 2 {
		t.Errorf("history has %d revisions (%v), want 2: the restart applied history again", len(h), err)
	}
	if _, rev := planState(p, sid, PlanProposed); rev != 1 {
		t.Errorf("proposed plan revision %d after restart, want 1", rev)
	}
	if _, rev := planState(p, SessionKey(second), PlanItems); rev != 1 {
		t.Errorf("second session's plan revision %d after restart, want 1", rev)
	}
}

// logRecorder is a slog handler that keeps messages, for asserting what was reported.
type logRecorder struct {
	mu   sync.Mutex
	recs []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	l.recs = append(l.recs, b.String())
	l.mu.Unlock()
	return nil
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }
func (l *logRecorder) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.recs, "\n")
}

// TestTailerSkipsOldFilesAndBadLines: a file older than Since is not read at start; malformed
// and over-long lines are reported with their line number and skipped.
func TestTailerSkipsOldFilesAndBadLines(t *testing.T) {
	sessions := t.TempDir()
	p := newPlans(t)
	rec := &logRecorder{}
	day := mkdir(t, filepath.Join(sessions, "2026", "11", "20"))
	oldID := "01a20aa7-0000-7000-8000-0000000000a1"
	old := filepath.Join(day, "rollout-2026-11-20T00-00-00-"+oldID+".jsonl")
	appendFile(t, old, metaLine(oldID, "/old")+planLine("c1", "Old=pending"))
	then := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(old, then, then); err != nil {
		t.Fatal(err)
	}
	newID := "01a20aa7-0000-7000-8000-0000000000b2"
	cur := filepath.Join(day, "rollout-2026-11-20T01-00-00-"+newID+".jsonl")
	long := `{"type":"response_item","payload":{"type":"message","role":"assistant","content":"` + strings.Repeat("x", MaxLineBytes) + `"}}` + "\n"
	appendFile(t, cur, metaLine(newID, "/new")+"{broken\n"+long+planLine("c2", "New=in_progress"))

	stop := runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{Log: slog.New(rec), Rescan: 50 * time.Millisecond}))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(newID), PlanItems)
		return s == "New=in_progress", "new plan " + s
	})
	stop()
	if s, _ := planState(p, SessionKey(oldID), PlanItems); s != "" {
		t.Errorf("an old file was read: %s", s)
	}
	logs := rec.all()
	for _, want := range []string{cur + ":2: malformed JSON", cur + ":3: the line is over the 8 MiB limit"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// TestTailerRetriesSlowApply: an apply that hangs is cut off by ApplyTimeout and the batch is
// tried again, and applied once.
func TestTailerRetriesSlowApply(t *testing.T) {
	sessions := t.TempDir()
	p := newPlans(t)
	real := ApplyTo(p, nil)
	var mu sync.Mutex
	calls := 0
	apply := func(ctx context.Context, lines []json.RawMessage) error {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch n {
		case 1:
			<-ctx.Done() // a store that hangs
			return ctx.Err()
		case 2:
			return errors.New("store unavailable")
		}
		return real(ctx, lines)
	}
	id := "01a20aa7-0000-7000-8000-0000000000c3"
	day := mkdir(t, filepath.Join(sessions, "2026", "11", "21"))
	appendFile(t, filepath.Join(day, "rollout-2026-11-21T00-00-00-"+id+".jsonl"), metaLine(id, "/w")+planLine("c1", "A=pending"))
	runTailer(t, NewTailer(sessions, apply, TailerOptions{ApplyTimeout: 50 * time.Millisecond, Retry: 20 * time.Millisecond,
		Log: slog.New(slog.DiscardHandler)}))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, rev := planState(p, SessionKey(id), PlanItems)
		return s == "A=pending" && rev == 1, fmt.Sprintf("plan %q rev %d", s, rev)
	})
	d, err := p.Session(context.Background(), SessionKey(id))
	if err != nil || d.Session.Cwd != "/w" || d.Session.Name() != "Codex" {
		t.Errorf("session after retries: %+v %v", d.Session, err)
	}
}

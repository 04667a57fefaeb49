//go:build unix

package codex

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// awaitLog waits, for at most d, until rec has a record containing s. It only orders a test's
// steps after what the tailer logs; the test's verdict comes from what follows.
func awaitLog(rec *logRecorder, s string, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline) && !strings.Contains(rec.all(), s); {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTailerFollowsSessionsDirCreatedLater is issue 25's item 8: the sessions directory (and
// its parent) does not exist when the tailer starts; a user's first Codex session creates it,
// with its dated subdirectories and a rollout, at once. With rescans an hour apart, only the
// watch on the nearest existing ancestor can find it.
func TestTailerFollowsSessionsDirCreatedLater(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, ".codex", "sessions")
	p := newPlans(t)
	rec := &logRecorder{}
	runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{Rescan: time.Hour, Log: slog.New(rec)}))
	// Only once the tailer has looked (and found nothing) does the session begin.
	awaitLog(rec, "watching its nearest ancestor", 10*time.Second)

	id := "01a20aa7-0000-7000-8000-0000000000d4"
	day := mkdir(t, filepath.Join(sessions, "2026", "11", "28"))
	appendFile(t, filepath.Join(day, "rollout-2026-11-28T00-00-00-"+id+".jsonl"), metaLine(id, "/first")+planLine("c1", "First=pending"))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(id), PlanItems)
		return s == "First=pending", "first session's plan " + s
	})

	// A session on a new day, in a directory made after the tree was found, arrives too.
	id2 := "01a20aa7-0000-7000-8000-0000000000d5"
	day2 := mkdir(t, filepath.Join(sessions, "2026", "11", "29"))
	appendFile(t, filepath.Join(day2, "rollout-2026-11-29T00-00-00-"+id2+".jsonl"), metaLine(id2, "/second")+planLine("c1", "Second=pending"))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(id2), PlanItems)
		return s == "Second=pending", "second session's plan " + s
	})
}

// TestTailerReadsRegularFilesOnly: a FIFO named like a rollout does not block the tailer (a
// rollout written afterwards is still followed), and neither a symlinked rollout nor a
// symlinked directory leads it to read files outside the sessions directory.
func TestTailerReadsRegularFilesOnly(t *testing.T) {
	sessions, outside := t.TempDir(), t.TempDir()
	p := newPlans(t)
	day := mkdir(t, filepath.Join(sessions, "2026", "11", "25"))
	if err := syscall.Mkfifo(filepath.Join(day, "rollout-2026-11-25T00-00-00-01a20aa7-0000-7000-8000-0000000000f1.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	secretID := "01a20aa7-0000-7000-8000-0000000000e1"
	secret := filepath.Join(outside, "rollout-2026-11-25T00-00-00-"+secretID+".jsonl")
	appendFile(t, secret, metaLine(secretID, "/secret")+planLine("c1", "Outside=pending"))
	if err := os.Symlink(secret, filepath.Join(day, "rollout-2026-11-25T00-00-01-"+secretID+".jsonl")); err != nil {
		t.Fatal(err)
	}
	linkedID := "01a20aa7-0000-7000-8000-0000000000e2"
	appendFile(t, filepath.Join(outside, "rollout-2026-11-26T00-00-00-"+linkedID+".jsonl"), metaLine(linkedID, "/linked")+planLine("c1", "Linked=pending"))
	if err := os.Symlink(outside, filepath.Join(sessions, "2026", "11", "26")); err != nil {
		t.Fatal(err)
	}

	stop := runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{Rescan: time.Hour, Log: slog.New(slog.DiscardHandler)}))
	id := "01a20aa7-0000-7000-8000-0000000000e3"
	appendFile(t, filepath.Join(day, "rollout-2026-11-25T01-00-00-"+id+".jsonl"), metaLine(id, "/mine")+planLine("c1", "Mine=pending"))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(id), PlanItems)
		return s == "Mine=pending", "the regular rollout's plan " + s
	})
	// A link made while running is ignored too.
	if err := os.Symlink(secret, filepath.Join(day, "rollout-2026-11-25T02-00-00-"+secretID+".jsonl")); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(day, "rollout-2026-11-25T01-00-00-"+id+".jsonl"), planLine("c2", "Mine=completed"))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(id), PlanItems)
		return s == "Mine=completed", "the regular rollout's plan " + s
	})
	stop()
	for _, sid := range []string{secretID, linkedID} {
		if s, _ := planState(p, SessionKey(sid), PlanItems); s != "" {
			t.Errorf("a rollout outside the sessions directory was read through a symlink: %s", s)
		}
	}
}

// TestTailerSkippedLinesDoNotFloodTheLog: a rollout of a hundred thousand malformed lines is
// reported in a bounded number of log lines (the first in full, then one summary with the
// count), not one line each.
func TestTailerSkippedLinesDoNotFloodTheLog(t *testing.T) {
	sessions := t.TempDir()
	p := newPlans(t)
	rec := &logRecorder{}
	day := mkdir(t, filepath.Join(sessions, "2026", "11", "27"))
	id := "01a20aa7-0000-7000-8000-0000000000a7"
	const bad = 100_000
	path := filepath.Join(day, "rollout-2026-11-27T00-00-00-"+id+".jsonl")
	appendFile(t, path, metaLine(id, "/w")+strings.Repeat("{broken\n", bad)+planLine("c1", "After=pending"))

	stop := runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{Rescan: time.Hour, Log: slog.New(rec)}))
	waitFor(t, 60*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(id), PlanItems)
		return s == "After=pending", "plan " + s
	})
	stop()
	rec.mu.Lock()
	recs := append([]string(nil), rec.recs...)
	rec.mu.Unlock()
	var skips []string
	for _, r := range recs {
		if strings.Contains(r, "skipped") {
			skips = append(skips, r)
		}
	}
	if len(skips) != 2 || !strings.Contains(skips[0], path+":2: malformed JSON") ||
		!strings.Contains(skips[1], "count=99999") || !strings.Contains(skips[1], path+":100001:") {
		n := min(len(skips), 3)
		t.Fatalf("%d log lines about skipped lines, want the first and one summary; first ones: %q", len(skips), skips[:n])
	}
}

// TestTailerFollowsALinkedSessionsDirectory: the sessions directory itself may be a symlink the
// user made (to another disk); a rollout already in it is read at start, without a rescan.
func TestTailerFollowsALinkedSessionsDirectory(t *testing.T) {
	real, home := t.TempDir(), t.TempDir()
	sessions := filepath.Join(home, "sessions")
	if err := os.Symlink(real, sessions); err != nil {
		t.Fatal(err)
	}
	p := newPlans(t)
	id := "01a20aa7-0000-7000-8000-0000000000b8"
	day := mkdir(t, filepath.Join(real, "2026", "11", "28"))
	appendFile(t, filepath.Join(day, "rollout-2026-11-28T00-00-00-"+id+".jsonl"), metaLine(id, "/w")+planLine("c1", "Linked=pending"))
	runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{Rescan: time.Hour, Log: slog.New(slog.DiscardHandler)}))
	waitFor(t, 30*time.Second, func() (bool, string) {
		s, _ := planState(p, SessionKey(id), PlanItems)
		return s == "Linked=pending", "plan " + s
	})
}

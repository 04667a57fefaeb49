package sharedplans

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// watchEvents starts a watcher and returns its events as a channel.
func watchEvents(t *testing.T, s *Store) <-chan Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan Event, 100)
	w, err := s.Watch(ctx, func(e Event) { ch <- e })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); w.Wait() })
	return ch
}

// watchTimeout bounds every wait on the watcher: a failure deadline on a loaded machine under
// -race, not a measurement.
const watchTimeout = time.Minute

// nextEvent waits for an event; the generous timeout only stops a broken test from hanging.
func nextEvent(t *testing.T, ch <-chan Event) Event {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-time.After(watchTimeout):
		t.Fatal("no event")
		return Event{}
	}
}

// noEvent checks that nothing was reported for what happened before it, without a time window:
// it writes a barrier plan file that reads as corrupt, so it goes through the same debounce and
// rechecks as anything written earlier, and is reported after all of it. The first event must
// be the barrier's. The barrier is then removed (and its removal consumed).
func noEvent(t *testing.T, s *Store, ch <-chan Event) {
	t.Helper()
	writeRaw(t, s, "zz-barrier.json", "{")
	if e := nextEvent(t, ch); e.Name != "zz-barrier" || !e.Corrupt() {
		t.Fatalf("unexpected event %+v before the barrier", e)
	}
	if err := os.Remove(filepath.Join(s.Dir(), "zz-barrier.json")); err != nil {
		t.Fatal(err)
	}
	if e := nextEvent(t, ch); e.Name != "zz-barrier" || !e.Removed {
		t.Fatalf("unexpected event %+v instead of the barrier's removal", e)
	}
}

func TestWatchSeesWriteByAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	s := newTestStore(t)
	ch := watchEvents(t, s)
	if m := mode(t, s.Dir()); m != 0o700 {
		t.Errorf("watch created the directory with mode %o, want 700", m)
	}
	cmd := startChild(t, ctxTimeout(t, time.Minute), "write-once", "SHAREDPLANS_DIR="+s.Dir(),
		"SHAREDPLANS_NAME=from-child", "SHAREDPLANS_CONTENT=hello from afar")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	e := nextEvent(t, ch)
	if e.Name != "from-child" || e.Removed || e.Err != nil || e.Plan.Content != "hello from afar" || e.Plan.Revision != 1 {
		t.Fatalf("event %+v", e)
	}
	noEvent(t, s, ch) // temp file, lock file and the rename's follow-up events are not plans
}

func TestWatchLifecycle(t *testing.T) {
	s := newTestStore(t)
	ch := watchEvents(t, s)
	ctx := context.Background()

	mustWrite(t, s, "p", "one")
	if e := nextEvent(t, ch); e.Name != "p" || e.Plan.Revision != 1 || e.Plan.Name != "p" {
		t.Fatalf("create: %+v", e)
	}
	mustWrite(t, s, "p", "two")
	if e := nextEvent(t, ch); e.Plan.Revision != 2 || e.Plan.Content != "two" {
		t.Fatalf("update: %+v", e)
	}
	if _, err := s.Delete(ctx, "p", nil); err != nil {
		t.Fatal(err)
	}
	if e := nextEvent(t, ch); e.Name != "p" || !e.Removed {
		t.Fatalf("delete: %+v", e)
	}
	// Not plans: a directory named *.json, the lock file, files of other extensions.
	if err := os.Mkdir(filepath.Join(s.Dir(), "d.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeRaw(t, s, "notes.txt", "x")
	writeRaw(t, s, "p.json123", "temp")
	noEvent(t, s, ch)
}

func TestWatchReportsCorruptAfterRechecks(t *testing.T) {
	s := newTestStore(t)
	ch := watchEvents(t, s)
	writeRaw(t, s, "bad.json", "{")
	e := nextEvent(t, ch)
	if e.Name != "bad" || !e.Corrupt() || e.Err.Error() != "plan file bad.json is corrupt: unexpected end of JSON input" {
		t.Fatalf("event %+v", e)
	}
	noEvent(t, s, ch) // the rechecks that found the same state report nothing
}

func TestWatchSeesNonAtomicWriterFinish(t *testing.T) {
	s := newTestStore(t)
	ch := watchEvents(t, s)
	// A writer that truncates and then writes in pieces, like a naive editor save: the file is
	// briefly invalid, but the plan it ends as is what must be reported.
	f, err := os.OpenFile(filepath.Join(s.Dir(), "slow.json"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"content":"half`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond) // lets the watcher see the half-written file; not an assertion
	if _, err := f.WriteString(`way there","revision":9}`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for {
		e := nextEvent(t, ch)
		if e.Err == nil {
			if e.Plan.Content != "halfway there" || e.Plan.Revision != 9 {
				t.Fatalf("event %+v", e)
			}
			return
		}
	}
}

func TestWatchSurvivesDirectoryRemoval(t *testing.T) {
	s := newTestStore(t)
	ch := watchEvents(t, s)
	mustWrite(t, s, "p", "one")
	nextEvent(t, ch)
	if err := os.RemoveAll(s.Dir()); err != nil {
		t.Fatal(err)
	}
	if e := nextEvent(t, ch); !e.Removed {
		t.Fatalf("after removing the directory: %+v", e)
	}
	// docker-agent re-creates the directory on its next write; the watcher must follow.
	deadline := time.Now().Add(watchTimeout)
	for {
		mustWrite(t, s, "q", "fresh")
		select {
		case e := <-ch:
			if e.Name == "q" && e.Plan.Content == "fresh" {
				return
			}
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not come back after the directory was re-created")
		}
		if _, err := s.Delete(context.Background(), "q", nil); err != nil {
			t.Fatal(err)
		}
	}
}

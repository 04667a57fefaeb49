package sharedplans

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestWatcherSweepsOldTempFiles is the crash while plandash runs: temp files left by a writer
// killed mid-write are removed by the running watcher once they are old, without a restart;
// a fresh one (a write that may be in progress) stays until it is old too.
func TestWatcherSweepsOldTempFiles(t *testing.T) {
	var clock atomic.Int64
	start := time.Now()
	clock.Store(start.UnixNano())
	s := New(filepath.Join(t.TempDir(), "plans"), WithClock(func() time.Time { return time.Unix(0, clock.Load()) }),
		WithTempSweep(10*time.Millisecond))
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := s.Watch(ctx, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	// Left after the watcher started, as a kill -9 during a write would leave them.
	old, fresh := filepath.Join(s.Dir(), "plan-1.json561978199"), filepath.Join(s.Dir(), "plan-2.json42")
	for path, mtime := range map[string]time.Time{old: start.Add(-2 * TempMaxAge), fresh: start} {
		if err := os.WriteFile(path, []byte(`{"name":"plan`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	gone := func(path string) bool {
		_, err := os.Lstat(path)
		return errors.Is(err, fs.ErrNotExist)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-ctx.Done():
				t.Fatalf("%s: never happened", what)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	waitFor("the old temp file removed", func() bool { return gone(old) })
	// Several more passes run; the fresh file is younger than TempMaxAge on the store's clock.
	time.Sleep(100 * time.Millisecond)
	if gone(fresh) {
		t.Fatal("a fresh temp file (a write in progress) was removed")
	}
	// Time passes; the same running watcher removes it once it is old.
	clock.Store(start.Add(TempMaxAge + time.Second).UnixNano())
	waitFor("the now-old temp file removed", func() bool { return gone(fresh) })
	cancel()
	w.Wait()
}

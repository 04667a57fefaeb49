package follow_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/follow"
)

type lineState struct {
	n    int
	seen map[string]bool
}

func cloneState(s lineState) lineState { s.seen = maps.Clone(s.seen); return s }

func TestFlushLines(t *testing.T) {
	st := lineState{seen: map[string]bool{}}
	lines := []string{"a", "b"}
	var got []string
	apply := func(fail bool) func(*lineState, []string) error {
		return func(s *lineState, ls []string) error {
			for _, l := range ls {
				s.n++
				s.seen[l] = true
			}
			got = append(got, ls...)
			if fail {
				return errors.New("store down")
			}
			return nil
		}
	}
	if err := follow.FlushLines(&lines, &st, cloneState, true, apply(false)); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 0 || st.n != 2 || !st.seen["b"] || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("after a flush: lines %v, state %+v, applied %v", lines, st, got)
	}

	lines = append(lines, "c")
	if err := follow.FlushLines(&lines, &st, cloneState, true, apply(true)); err == nil {
		t.Fatal("the apply's error was not returned")
	}
	if len(lines) != 0 || st.n != 2 || st.seen["c"] {
		t.Fatalf("after a failed flush: lines %v, state %+v; want the state as before", lines, st)
	}

	got = nil
	lines = append(lines, "d")
	if err := follow.FlushLines(&lines, &st, cloneState, false, apply(false)); err != nil || len(lines) != 0 || got != nil {
		t.Fatalf("a flush not ready: err %v, lines %v, applied %v; want the lines dropped, nothing applied", err, lines, got)
	}
}

func TestDiscoverReadsAWeekBack(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for name, age := range map[string]time.Duration{"recent.jsonl": 6 * 24 * time.Hour, "old.jsonl": 8 * 24 * time.Hour} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("line\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	read := map[string]bool{}
	src := follow.Source{Name: "test", StateFile: "test.json", Match: func(string) bool { return true },
		New: func(path string, _ follow.Saved) follow.Parser {
			return parserFunc(func() { mu.Lock(); read[filepath.Base(path)] = true; mu.Unlock() })
		}}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	_ = follow.Discover(dir, src, follow.DiscoverOptions{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Run(ctx)
	mu.Lock()
	defer mu.Unlock()
	if !read["recent.jsonl"] || read["old.jsonl"] {
		t.Fatalf("read %v; want the file of 6 days ago and not the one of 8", read)
	}
}

type parserFunc func()

func (f parserFunc) Line([]byte, int) error    { f(); return nil }
func (parserFunc) Flush(context.Context) error { return nil }
func (parserFunc) Saved() follow.Saved         { return follow.Saved{} }

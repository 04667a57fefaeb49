package follow_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

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

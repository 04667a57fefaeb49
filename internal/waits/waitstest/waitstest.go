// Package waitstest states the waits.Store contract as tests. Every implementation runs them:
//
//	func TestWaitsContract(t *testing.T) { waitstest.Run(t, openWaits) }
package waitstest

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
)

// Run runs the contract suite. open returns an empty store that lives until the test ends.
func Run(t *testing.T, open func(t *testing.T) waits.Store) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, waits.Store)
	}{
		{"round trip and not found", testRoundTrip},
		{"Open lists the open ones", testOpen},
		{"End once among concurrent enders", testEndOnce},
		{"Begin replaces an ended record", testBeginAgain},
		{"End of nothing", testEndNothing},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

var at = time.Date(2026, 11, 28, 1, 2, 3, 0, time.UTC)

func question(id string) waits.Record {
	return waits.Record{ID: id, Kind: waits.KindQuestion, SessionID: "s1", Agent: "claude-code", AgentName: "Claude Code",
		Title: "Which database?", Text: "Which database?\n  1. PostgreSQL\n", Answerable: true, Since: at,
		Questions: []waits.Question{{Question: "Which database?", Header: "DB", FreeText: true,
			Options: []waits.Option{{Label: "PostgreSQL", Description: "the server"}, {Label: "SQLite"}}}}}
}

func testRoundTrip(t *testing.T, s waits.Store) {
	ctx := context.Background()
	r := question("q-1")
	if err := s.Begin(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "q-1")
	if err != nil {
		t.Fatal(err)
	}
	got.Since, r.Since = got.Since.UTC(), r.Since.UTC()
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
	}
	if _, err := s.Get(ctx, "q-none"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Get of nothing: %v", err)
	}
}

func testOpen(t *testing.T, s waits.Store) {
	ctx := context.Background()
	for _, id := range []string{"q-a", "q-b", "input-c"} {
		r := question(id)
		if id == "input-c" {
			r.Kind, r.Questions, r.Answerable = waits.KindInput, nil, false
		}
		if err := s.Begin(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.End(ctx, "q-a", func(r *waits.Record) error {
		r.Ended, r.EndedBy, r.Outcome = at.Add(time.Minute), "ann", "answered: SQLite"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	open, err := s.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range open {
		ids[r.ID] = true
	}
	if len(open) != 2 || !ids["q-b"] || !ids["input-c"] {
		t.Fatalf("open = %+v", open)
	}
	ended, err := s.Get(ctx, "q-a")
	if err != nil || ended.Open() || ended.EndedBy != "ann" || ended.Outcome != "answered: SQLite" {
		t.Fatalf("ended record = %+v, %v", ended, err)
	}
}

func testEndOnce(t *testing.T, s waits.Store) {
	ctx := context.Background()
	if err := s.Begin(ctx, question("q-race")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for i := range 8 {
		wg.Go(func() {
			_, err := s.End(ctx, "q-race", func(r *waits.Record) error {
				if !r.Open() {
					return &waits.EndedError{ID: r.ID, Outcome: r.Outcome}
				}
				r.Ended, r.Outcome = at, "answered by "+string(rune('a'+i))
				return nil
			})
			mu.Lock()
			defer mu.Unlock()
			var ee *waits.EndedError
			switch {
			case err == nil:
				won++
			case errors.As(err, &ee):
				lost++
			default:
				t.Errorf("End: %v", err)
			}
		})
	}
	wg.Wait()
	if won != 1 || lost != 7 {
		t.Fatalf("%d won, %d lost; want 1 and 7", won, lost)
	}
}

func testBeginAgain(t *testing.T, s waits.Store) {
	ctx := context.Background()
	r := question("input-s1")
	r.Kind, r.Questions = waits.KindInput, nil
	if err := s.Begin(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.End(ctx, r.ID, func(r *waits.Record) error { r.Ended = at; return nil }); err != nil {
		t.Fatal(err)
	}
	r.Title = "waits again"
	if err := s.Begin(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, r.ID)
	if err != nil || !got.Open() || got.Title != "waits again" {
		t.Fatalf("after a second Begin: %+v, %v", got, err)
	}
	if open, err := s.Open(ctx); err != nil || len(open) != 1 {
		t.Fatalf("open = %+v, %v", open, err)
	}
}

func testEndNothing(t *testing.T, s waits.Store) {
	sentinel := errs.New(errs.NotFound, "none here")
	called := false
	_, err := s.End(context.Background(), "q-none", func(r *waits.Record) error {
		called = true
		if r != nil {
			t.Errorf("End of nothing saw %+v", r)
		}
		return sentinel
	})
	if !called || !errors.Is(err, sentinel) {
		t.Fatalf("End of nothing: called %v, err %v", called, err)
	}
}

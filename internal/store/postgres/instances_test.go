package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

// Several instances on one database: what the contract suites cannot see from one store.

func TestChangedSinceIsExactAcrossInstances(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	writers := []*DB{open(t, url), open(t, url)}
	reader := open(t, url).Plans()

	// Two instances commit at once while a third follows ChangedSince with its cursor, as a
	// reconnecting page does: every session must reach it, however the commits interleave.
	const perWriter = 40
	errs := make(chan error, len(writers))
	var wg sync.WaitGroup
	for w, db := range writers {
		wg.Go(func() {
			for i := range perWriter {
				sess := &plans.Session{ID: fmt.Sprintf("w%d-%d", w, i), Agent: "a"}
				if err := db.Plans().Commit(ctx, &plans.Changes{Sessions: []*plans.Session{sess}}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	seen := map[string]bool{}
	var cursor uint64
	for finished := false; ; {
		select {
		case <-done:
			finished = true
		default:
		}
		ids, cur, err := reader.ChangedSince(ctx, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if cur < cursor {
			t.Fatalf("ChangedSince went back from %d to %d", cursor, cur)
		}
		for _, id := range ids {
			seen[id] = true
		}
		cursor = cur
		if finished {
			break // this last read began after every commit ended
		}
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Commit: %v", err)
		}
	}
	if len(seen) != len(writers)*perWriter {
		t.Fatalf("the follower saw %d sessions, want %d", len(seen), len(writers)*perWriter)
	}
	if cursor != reader.Seq() || cursor < uint64(len(writers)*perWriter) {
		t.Fatalf("cursor %d, reader Seq %d; want the same, at least %d", cursor, reader.Seq(), len(writers)*perWriter)
	}
}

func TestDecideOnceAcrossInstances(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a, b := open(t, url).Approvals(), open(t, url).Approvals()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := approval.Request{ID: "r", Status: approval.Pending, Title: "t", Created: at, Deadline: at.Add(time.Hour),
		Options: []approval.Action{approval.Approve, approval.Reject}, Default: approval.Reject}
	if _, created, err := a.Create(ctx, r, nil); err != nil || !created {
		t.Fatalf("Create = %v, %v", created, err)
	}
	const n = 10
	type result struct {
		ok  bool
		err error
	}
	results := make(chan result, 2*n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 2 * n {
		store := []approval.Store{a, b}[i%2]
		wg.Go(func() {
			d := r
			d.Status = approval.Approved
			d.Decision = &approval.Decision{Action: approval.Approve, By: fmt.Sprintf("p%d", i), At: at.Add(time.Minute)}
			<-start
			ok, err := store.Decide(ctx, d, []approval.AuditEvent{{At: d.Decision.At, Event: "approved", RequestID: "r", By: d.Decision.By}})
			results <- result{ok, err}
		})
	}
	close(start)
	wg.Wait()
	close(results)
	wins := 0
	for res := range results {
		if res.err != nil {
			t.Errorf("Decide: %v", res.err)
		}
		if res.ok {
			wins++
		}
	}
	if wins != 1 {
		t.Fatalf("%d deciders won, want exactly one", wins)
	}
	if ev, err := b.Audit(ctx, approval.AuditFilter{Limit: 100}); err != nil || len(ev) != 1 {
		t.Fatalf("Audit = %d events, %v; want the one decision", len(ev), err)
	}
}

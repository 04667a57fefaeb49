package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// twoProcesses opens one file twice, as two processes on one data directory would.
func twoProcesses(t *testing.T) (a, b *DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plandash.db")
	open := func() *DB {
		db, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	return open(), open()
}

// sessionAndPlan reads session "s" and its plan "p" in tx, or makes them anew at at when the
// file has neither yet.
func sessionAndPlan(ctx context.Context, tx plans.Txn, at time.Time) (plans.Session, plans.Plan) {
	sess, err := tx.Session(ctx, "s")
	if err != nil {
		sess = plans.Session{ID: "s", FirstSeen: at}
	}
	p, err := tx.Plan(ctx, "s", "p")
	if err != nil {
		p = plans.Plan{SessionID: "s", ID: "p", Kind: plans.KindItems, Created: at}
	}
	return sess, p
}

// A batch reads what another process wrote to the file since this one last wrote it, though
// this one remembers the rows it wrote (current.go).
func TestBatchSeesAnotherProcess(t *testing.T) {
	ctx := context.Background()
	a, b := twoProcesses(t) // two processes on one data directory
	at := time.Unix(100, 0).UTC()
	write := func(db *DB, title string, rev int) {
		t.Helper()
		tx, err := db.plans.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		sess, p := sessionAndPlan(ctx, tx, at)
		if p.Revision != rev-1 {
			t.Fatalf("%s: the batch read revision %d of the plan, want %d", title, p.Revision, rev-1)
		}
		sess.Title, sess.LastSeen = title, at.Add(time.Duration(rev)*time.Second)
		p.Revision, p.Updated, p.Entries = rev, sess.LastSeen, []plans.Entry{{Content: title, Status: "pending"}}
		rp := p
		if err := tx.Commit(ctx, &plans.Changes{Sessions: []*plans.Session{&sess}, Plans: []*plans.Plan{&p}, Revisions: []*plans.Plan{&rp}}); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "a1", 1)
	write(a, "a2", 2) // from a's memory
	write(b, "b3", 3) // b reads the file
	write(a, "a4", 4) // a must read the file again: b wrote revision 3
	got, err := b.Plans().Session(ctx, "s")
	if err != nil || got.Title != "a4" {
		t.Fatalf("session = %+v, %v; want the title a4", got, err)
	}
	revs, err := b.Plans().History(ctx, "s", "p")
	if err != nil || len(revs) != 4 {
		t.Fatalf("history has %d revisions (%v), want 4", len(revs), err)
	}
}

// A batch that ends without committing writes nothing, and what it read stays true.
func TestBatchRollback(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	s := db.plans
	sess := &plans.Session{ID: "s", FirstSeen: time.Unix(1, 0).UTC(), LastSeen: time.Unix(1, 0).UTC()}
	if err := s.Commit(ctx, &plans.Changes{Sessions: []*plans.Session{sess}}); err != nil {
		t.Fatal(err)
	}
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tx.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	got.Title = "not committed"
	tx.Rollback()
	tx.Rollback() // twice is harmless
	if err := tx.Commit(ctx, &plans.Changes{Sessions: []*plans.Session{&got}}); err == nil {
		t.Error("a batch rolled back committed")
	}
	tx, err = s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if again, err := tx.Session(ctx, "s"); err != nil || again.Title != "" {
		t.Fatalf("after a rollback the session is %+v, %v", again, err)
	}
}

// The running tool calls and newest activity a process remembers give way to what another
// process wrote too.
func TestBatchSeesAnotherProcessCallsAndActivity(t *testing.T) {
	ctx := context.Background()
	a, b := twoProcesses(t)
	at := time.Unix(100, 0).UTC()
	// step reads the call and the newest activity in a batch of db, checks them, and writes
	// the call with status and the activity with text appended.
	step := func(db *DB, wantStatus, wantText, status, text string) {
		t.Helper()
		tx, err := db.plans.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		call, err := tx.ToolCall(ctx, "s", "c")
		if err != nil {
			call = plans.ToolCall{SessionID: "s", ID: "c", Created: at}
		}
		act, err := tx.LastActivity(ctx, "s")
		if err != nil {
			act = plans.Activity{SessionID: "s", At: at, Kind: "agent_message_chunk"}
		}
		if call.Status != wantStatus || act.Text != wantText {
			t.Fatalf("the batch read status %q and text %q, want %q and %q", call.Status, act.Text, wantStatus, wantText)
		}
		call.Status, call.Updated = status, at
		act.Text += text
		sess := plans.Session{ID: "s", FirstSeen: at, LastSeen: at}
		if err := tx.Commit(ctx, &plans.Changes{Sessions: []*plans.Session{&sess}, ToolCalls: []*plans.ToolCall{&call},
			Activity: []*plans.Activity{&act}}); err != nil {
			t.Fatal(err)
		}
	}
	step(a, "", "", "pending", "a")
	step(a, "pending", "a", "in_progress", "b") // from a's memory
	step(b, "in_progress", "ab", "in_progress", "c")
	step(a, "in_progress", "abc", "completed", "d") // a reads what b wrote
	step(a, "completed", "abcd", "completed", "e")  // a completed call is read from the file
}

// The plans a batch remembers keep their own JSON: the body they were decoded from is reused
// or freed after the post, and must not change (or be held by) the remembered plan.
func TestRememberedPlanOwnsItsJSON(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t).plans
	body := []byte(`{"a":1}{"b":2}{"c":3}`)
	at := time.Unix(1, 0).UTC()
	p := &plans.Plan{SessionID: "s", ID: "p", Kind: plans.KindCustom, Revision: 1, Created: at, Updated: at,
		Meta: body[0:7], Raw: body[7:14], Entries: []plans.Entry{{Content: "x", Status: "pending", Meta: body[14:]}}}
	sess := &plans.Session{ID: "s", FirstSeen: at, LastSeen: at}
	if err := s.Commit(ctx, &plans.Changes{Sessions: []*plans.Session{sess}, Plans: []*plans.Plan{p}}); err != nil {
		t.Fatal(err)
	}
	clear(body) // the server's buffer, reused for the next post
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	got, err := tx.Plan(ctx, "s", "p")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Meta) != `{"a":1}` || string(got.Raw) != `{"b":2}` || string(got.Entries[0].Meta) != `{"c":3}` {
		t.Fatalf("the remembered plan changed with the body it came from: meta %q raw %q entry %q", got.Meta, got.Raw, got.Entries[0].Meta)
	}
}

// A batch starts no goroutine: database/sql's transactions start one each (and one per query
// in them) to watch their context, and for one poster posting one message at a time waking
// them on the other core cost more than the statements.
func TestBatchStartsNoGoroutine(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t).plans
	at := time.Unix(100, 0).UTC()
	commit := func(rev int) {
		tx, err := s.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		sess, p := sessionAndPlan(ctx, tx, at)
		sess.LastSeen = at.Add(time.Duration(rev) * time.Second)
		p.Revision, p.Updated, p.Entries = rev, sess.LastSeen, []plans.Entry{{Content: "step", Status: "pending"}}
		rp := p
		a := &plans.Activity{SessionID: "s", Kind: "message", Text: "chunk"}
		if err := tx.Commit(ctx, &plans.Changes{Sessions: []*plans.Session{&sess}, Plans: []*plans.Plan{&p},
			Revisions: []*plans.Plan{&rp}, Activity: []*plans.Activity{a}}); err != nil {
			t.Fatal(err)
		}
	}
	commit(1)
	created := func() uint64 {
		m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(m)
		return m[0].Value.Uint64()
	}
	const batches = 50
	before := created()
	for rev := range batches {
		commit(rev + 2)
	}
	// A few may be the runtime's or the checkpointer's own; one per batch is not.
	if n := created() - before; n >= batches/2 {
		t.Fatalf("%d batches started %d goroutines", batches, n)
	}
}

// A batch waiting for the writer behind another gives up when its context ends, and the
// writer serves the next batch once the first ends.
func TestBatchWaitingForTheWriterIsCancelled(t *testing.T) {
	s := openTemp(t).plans
	first, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		tx, err := s.Begin(ctx)
		if err == nil {
			tx.Rollback()
		}
		got <- err
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin behind another batch, cancelled: %v", err)
	}
	first.Rollback()
	next, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	next.Rollback()
}

package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

// heard collects what a listener hands on.
type heard struct {
	mu    sync.Mutex
	notes []Note
}

func (h *heard) add(_ context.Context, n Note) {
	h.mu.Lock()
	h.notes = append(h.notes, n)
	h.mu.Unlock()
}

// count is how many notes of kind, id and part were heard.
func (h *heard) count(kind, id, part string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, x := range h.notes {
		if x.Kind == kind && x.ID == id && x.Part == part {
			n++
		}
	}
	return n
}

// waitFor polls until ok holds, failing the test after a generous bound (never a timing claim).
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// listen runs a listener on db until the test ends, and waits until it listens.
func listen(t *testing.T, db *DB, fn func(context.Context, Note)) *Listener {
	t.Helper()
	l := db.Listener(fn, ListenOptions{Log: slog.New(slog.DiscardHandler), MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-l.Ready():
	case <-time.After(20 * time.Second):
		t.Fatal("the listener never listened")
	}
	return l
}

func commitSession(t *testing.T, db *DB, id string) {
	t.Helper()
	sess := &plans.Session{ID: id, Agent: "a"}
	p := &plans.Plan{SessionID: id, ID: "main", Revision: 1}
	if err := db.Plans().Commit(context.Background(), &plans.Changes{Sessions: []*plans.Session{sess}, Plans: []*plans.Plan{p}}); err != nil {
		t.Fatal(err)
	}
}

// TestListenerHearsOthersOnly: each kind of commit reaches the other instances' listeners, not
// the committing instance's own.
func TestListenerHearsOthersOnly(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	var ha, hb heard
	listen(t, a, ha.add)
	listen(t, b, hb.add)

	commitSession(t, a, "s1")
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := approval.Request{ID: "r1", Status: approval.Pending, Title: "t", Created: at, Deadline: at.Add(time.Hour), Default: approval.Reject}
	if _, _, err := a.Approvals().Create(context.Background(), r, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []Note{{Kind: NoteSession, ID: "s1"}, {Kind: NoteSession, ID: "s1", Part: "plan:main"}, {Kind: NoteApproval, ID: "r1"}} {
		waitFor(t, fmt.Sprintf("b to hear %+v", want), func() bool { return hb.count(want.Kind, want.ID, want.Part) == 1 })
	}
	// b's own commit after a's: once a hears it, it would have heard its own earlier ones.
	commitSession(t, b, "s2")
	waitFor(t, "a to hear s2", func() bool { return ha.count(NoteSession, "s2", "") == 1 })
	if n := ha.count(NoteSession, "s1", ""); n != 0 {
		t.Fatalf("a heard its own commit %d times", n)
	}
}

// TestListenerRecoversWithoutLoss: the listening connection is killed (pg_terminate_backend)
// again and again while another instance commits; every commit is handed on exactly once.
func TestListenerRecoversWithoutLoss(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	var h heard
	listen(t, a, h.add)

	const n = 60
	done := make(chan struct{})
	var werr error
	go func() {
		defer close(done)
		for i := range n {
			sess := &plans.Session{ID: fmt.Sprintf("s%02d", i), Agent: "a"}
			if werr = b.Plans().Commit(context.Background(), &plans.Changes{Sessions: []*plans.Session{sess}}); werr != nil {
				return
			}
		}
	}()
	kills := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		tag, err := b.pool.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, a.ApplicationName())
		if err != nil {
			t.Fatal(err)
		}
		if tag.RowsAffected() > 0 {
			kills++
		}
		time.Sleep(2 * time.Millisecond)
	}
	if werr != nil {
		t.Fatal(werr)
	}
	if kills == 0 {
		t.Fatal("the listening connection was never killed")
	}
	for i := range n {
		id := fmt.Sprintf("s%02d", i)
		waitFor(t, "a to hear "+id, func() bool { return h.count(NoteSession, id, "") > 0 })
	}
	// One more commit, heard after every catch-up: nothing before it may still arrive twice.
	commitSession(t, b, "last")
	waitFor(t, "a to hear the last commit", func() bool { return h.count(NoteSession, "last", "") == 1 })
	for i := range n {
		if c := h.count(NoteSession, fmt.Sprintf("s%02d", i), ""); c != 1 {
			t.Errorf("s%02d handed on %d times, want once (%d kills)", i, c, kills)
		}
	}
}

// TestOversizedNoteCatchesUp: a change whose id does not fit in a payload still reaches other
// instances, read back from the database.
func TestOversizedNoteCatchesUp(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	var h heard
	listen(t, a, h.add)
	long := strings.Repeat("x", maxPayload)
	commitSession(t, b, long)
	waitFor(t, "the long session id", func() bool { return h.count(NoteSession, long, "") == 1 })
	if c := h.count(NoteSession, long, "plan:main"); c != 1 {
		t.Fatalf("its plan part heard %d times, want once", c)
	}
}

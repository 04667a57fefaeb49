package sharedplans_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

func newService(t *testing.T) (*sharedplans.Service, *sqlite.DB, string) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dir := t.TempDir()
	svc := sharedplans.NewService(sharedplans.New(dir), db.SharedHistory(), sharedplans.ServiceConfig{Log: slog.New(slog.DiscardHandler)})
	return svc, db, dir
}

// run starts the watcher and waits until it sees the directory, so what follows races it.
func run(t *testing.T, svc *sharedplans.Service) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	barrier(t, svc, "probe")
}

// watchTimeout bounds every wait on the watcher. It is a failure deadline on a loaded 2-core
// machine under -race (the first scan of 2,000 files records each in the history), not a
// measurement: a passing wait ends as soon as the watcher has done its part.
const watchTimeout = time.Minute // the same as the package's own tests (watch_test.go)

// barrier writes plan name as another process would and waits until the watcher recorded it.
func barrier(t *testing.T, svc *sharedplans.Service, name string) {
	t.Helper()
	content := name
	if _, err := svc.Store().Upsert(context.Background(), sharedplans.UpsertRequest{Name: name, Content: &content}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(watchTimeout)
	for {
		if e, ok, err := svc.History().Latest(context.Background(), name); err == nil && ok && e.Source == "disk" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher never recorded %s, written on disk", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWriteIsAttributedBeforeTheWatcherSeesIt: with the watcher running, every write plandash
// makes is recorded as its own, never first as "seen on disk" (the watcher sees the same file a
// moment later and finds the state recorded).
func TestWriteIsAttributedBeforeTheWatcherSeesIt(t *testing.T) {
	svc, _, _ := newService(t)
	run(t, svc)
	ctx := context.Background()
	const n = 40
	for i := range n {
		content := fmt.Sprintf("# step %d", i)
		if _, err := svc.Write(ctx, sharedplans.UpsertRequest{Name: "release", Content: &content}, "browser"); err != nil {
			t.Fatal(err)
		}
	}
	// A barrier: the watcher handles events in order, so once it recorded a plan another process
	// wrote after those writes, it has handled every event the writes made.
	barrier(t, svc, "after")
	hist, err := svc.History().History(ctx, "release", 2*n)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != n {
		t.Fatalf("%d states recorded for %d writes", len(hist), n)
	}
	for _, e := range hist {
		if e.Source != "browser" {
			t.Fatalf("revision %d recorded as %q, want browser", e.Revision, e.Source)
		}
	}
}

type fakeGate struct {
	mu   sync.Mutex
	subs []approval.Submission
}

func (g *fakeGate) Submit(_ context.Context, sub approval.Submission) (approval.Request, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.subs = append(g.subs, sub)
	return approval.Request{ID: sub.ID, Status: approval.Pending}, true, nil
}

// TestDecisionLandsOnThePlan: a request for a shared plan marks it waiting; the decision sets its
// status (a modified plan is written back first), recorded as the gate's, and Run waits for it.
func TestDecisionLandsOnThePlan(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	content := "# Release"
	p, err := svc.Write(ctx, sharedplans.UpsertRequest{Name: "release", Content: &content}, "api")
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGate{}
	req, err := svc.RequestApproval(ctx, g, "release", p.Revision)
	if err != nil || req.ID != sharedplans.RequestID("release", p.Revision) {
		t.Fatalf("request %+v, %v", req, err)
	}
	if _, err := svc.RequestApproval(ctx, g, "release", p.Revision); err == nil {
		t.Fatal("a request at a revision the plan has left was accepted")
	}
	cur, _, _ := svc.Store().Get(ctx, "release")
	if cur.Status != sharedplans.StatusWaiting {
		t.Fatalf("status %q while waiting", cur.Status)
	}
	edited := "# Release, edited"
	decided := approval.Request{ID: req.ID, Status: approval.Approved,
		Decision: &approval.Decision{Action: approval.Modify, Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: edited}}}
	svc.GateChanged(approval.Change{Request: &decided})
	ctxRun, cancel := context.WithCancel(ctx)
	cancel()
	svc.Run(ctxRun) // returns only once the decision was written back
	cur, _, err = svc.Store().Get(ctx, "release")
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status != sharedplans.StatusApproved || cur.Content != edited {
		t.Fatalf("after the decision: status %q content %q", cur.Status, cur.Content)
	}
	e, _, _ := svc.History().Latest(ctx, "release")
	if e.Source != "approval" {
		t.Fatalf("the decision was recorded as %q", e.Source)
	}
}

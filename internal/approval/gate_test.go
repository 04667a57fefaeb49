package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
	"github.com/plandash/plandash/internal/testkit"
)

// clock is a settable time source, so deadlines are tested without sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// openStore opens the one database handle in dir; its Approvals is the gate's store.
func openStore(t testing.TB, dir string) *sqlite.DB {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newGate(t testing.TB, cfg approval.Config) *approval.Gate {
	t.Helper()
	st := openStore(t, t.TempDir())
	t.Cleanup(func() { st.Close() })
	return gateOn(t, st, cfg)
}

// gateOn is a gate on st's requests.
func gateOn(t testing.TB, st *sqlite.DB, cfg approval.Config) *approval.Gate {
	t.Helper()
	g, err := approval.New(context.Background(), st.Approvals(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func items(texts ...string) approval.PlanBody {
	p := approval.PlanBody{Type: approval.TypeItems}
	for _, s := range texts {
		p.Entries = append(p.Entries, plans.Entry{Content: s, Priority: "medium", Status: "pending"})
	}
	return p
}

func submit(t testing.TB, g *approval.Gate, sub approval.Submission) approval.Request {
	t.Helper()
	if sub.Title == "" {
		sub.Title = "Refactor the parser"
	}
	if sub.Plan.Type == "" && len(sub.Plan.Entries) == 0 {
		sub.Plan = items("Read the code", "Change it", "Test it")
	}
	r, created, err := g.Submit(context.Background(), sub)
	if err != nil || !created {
		t.Fatalf("submit: created=%v err=%v", created, err)
	}
	return r
}

func TestSubmitRefusesBadInput(t *testing.T) {
	g := newGate(t, approval.Config{})
	long := strings.Repeat("x", approval.MaxTitle+1)
	tests := []struct {
		name string
		sub  approval.Submission
		kind errs.Kind
		want string
	}{
		{"no title", approval.Submission{Plan: items("a")}, errs.Invalid, "no title"},
		{"empty plan", approval.Submission{Title: "t"}, errs.Invalid, "plan is empty"},
		{"unknown type", approval.Submission{Title: "t", Plan: approval.PlanBody{Type: "file"}}, errs.Invalid, "items, markdown or dag"},
		{"blank entry", approval.Submission{Title: "t", Plan: items("a", "  ")}, errs.Invalid, "entry 2 has no text"},
		{"bad priority", approval.Submission{Title: "t", Plan: approval.PlanBody{Entries: []plans.Entry{{Content: "a", Priority: "urgent"}}}}, errs.Invalid, "priority \"urgent\""},
		{"bad status", approval.Submission{Title: "t", Plan: approval.PlanBody{Entries: []plans.Entry{{Content: "a", Status: "done"}}}}, errs.Invalid, "status \"done\""},
		{"blank markdown", approval.Submission{Title: "t", Plan: approval.PlanBody{Type: "markdown", Markdown: " \n"}}, errs.Invalid, "no text"},
		{"dag not array", approval.Submission{Title: "t", Plan: approval.PlanBody{Type: "dag", Calls: json.RawMessage(`{"a":1}`)}}, errs.Invalid, "array of tool calls"},
		{"dag call not object", approval.Submission{Title: "t", Plan: approval.PlanBody{Type: "dag", Calls: json.RawMessage(`[1]`)}}, errs.Invalid, "call 0 is not an object"},
		{"long title", approval.Submission{Title: long, Plan: items("a")}, errs.TooLarge, "limit is 200"},
		{"huge plan", approval.Submission{Title: "t", Plan: approval.PlanBody{Type: "markdown", Markdown: strings.Repeat("x", approval.MaxPlanBytes)}}, errs.TooLarge, "limit is"},
		{"too many entries", approval.Submission{Title: "t", Plan: items(make([]string, approval.MaxEntries+1)...)}, errs.TooLarge, "limit is 1000"},
		{"bad option", approval.Submission{Title: "t", Plan: items("a"), Options: []approval.Action{"ignore"}}, errs.Invalid, "option \"ignore\""},
		{"bad default", approval.Submission{Title: "t", Plan: items("a"), Default: approval.Modify}, errs.Invalid, "default outcome"},
		{"deadline too close", approval.Submission{Title: "t", Plan: items("a"), Timeout: approval.Duration(time.Millisecond)}, errs.Invalid, "between 1s"},
		{"deadline and timeout", approval.Submission{Title: "t", Plan: items("a"), Timeout: approval.Duration(time.Minute), Deadline: time.Now().Add(time.Hour)}, errs.Invalid, "not both"},
		{"reserved id", approval.Submission{ID: "audit", Title: "t", Plan: items("a")}, errs.Invalid, "reserved"},
		{"id with slash", approval.Submission{ID: "a/b", Title: "t", Plan: items("a")}, errs.Invalid, "letters, digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := g.Submit(context.Background(), tt.sub)
			if err == nil || errs.KindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (kind %d), want kind %d containing %q", err, errs.KindOf(err), tt.kind, tt.want)
			}
		})
	}
}

func TestSubmitTakesACPSpellings(t *testing.T) {
	g := newGate(t, approval.Config{})
	var sub approval.Submission
	if err := json.Unmarshal([]byte(`{"title":"t","timeout":"90s","plan":{"type":"markdown","content":"# Plan\n- a"}}`), &sub); err != nil {
		t.Fatal(err)
	}
	r := submit(t, g, sub)
	if r.Plan.Type != "markdown" || r.Plan.Markdown != "# Plan\n- a" || r.Default != approval.Reject || len(r.Options) != 3 {
		t.Fatalf("request = %+v", r)
	}
	if d := r.Deadline.Sub(r.Created); d != 90*time.Second {
		t.Fatalf("deadline %s after creation, want 90s", d)
	}
	if err := json.Unmarshal([]byte(`{"title":"t","timeout":30,"plan":{"type":"_dag","calls":[{"_tool":"read"}]}}`), &sub); err != nil {
		t.Fatal(err)
	}
	if r := submit(t, g, sub); r.Plan.Type != approval.TypeDAG || r.Deadline.Sub(r.Created) != 30*time.Second {
		t.Fatalf("dag request = %+v", r)
	}
}

func TestDeadlineAppliesDefaultOutcome(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	g := newGate(t, approval.Config{Now: clk.Now})
	closed := submit(t, g, approval.Submission{Timeout: approval.Duration(time.Minute)})
	open := submit(t, g, approval.Submission{Timeout: approval.Duration(2 * time.Minute), Default: approval.Approve})
	later := submit(t, g, approval.Submission{Timeout: approval.Duration(time.Hour)})

	clk.Add(time.Minute)
	if n, err := g.ExpireDue(ctx); err != nil || n != 1 {
		t.Fatalf("ExpireDue = %d, %v; want the one request at its deadline", n, err)
	}
	r, _ := g.Get(ctx, closed.ID)
	if r.Status != approval.Rejected || !r.Decision.Expired || r.Decision.By != "deadline" || r.Decision.Plan != nil {
		t.Fatalf("fail-closed request after its deadline: %+v %+v", r, r.Decision)
	}
	// A deadline is honoured on read even before the loop gets to it.
	clk.Add(time.Minute)
	r, _ = g.Get(ctx, open.ID)
	if r.Status != approval.Approved || !r.Decision.Expired || r.Decision.Plan == nil || !r.Decision.Plan.Equal(open.Plan) {
		t.Fatalf("default-approve request after its deadline: %+v %+v", r, r.Decision)
	}
	// Deciding an expired request is a conflict that carries the default outcome.
	_, err := g.Decide(ctx, closed.ID, approval.DecisionInput{Action: approval.Approve, By: "ann"})
	var de *approval.DecidedError
	if !errors.As(err, &de) || errs.KindOf(err) != errs.Conflict || de.Request.Status != approval.Rejected || !strings.Contains(err.Error(), "default outcome") {
		t.Fatalf("decide after deadline: %v", err)
	}
	if r, _ := g.Get(ctx, later.ID); r.Status != approval.Pending {
		t.Fatalf("request with an hour left is %s", r.Status)
	}
	ev, _ := g.Audit(ctx, approval.AuditFilter{})
	if n := countEvents(ev, approval.EventExpired); n != 2 {
		t.Fatalf("%d expiry events in the audit trail, want 2", n)
	}
}

func TestWaitWakesAtDeadline(t *testing.T) {
	g := newGate(t, approval.Config{})
	r := submit(t, g, approval.Submission{Timeout: approval.Duration(time.Second)})
	got, err := g.Wait(context.Background(), r.ID, time.Minute)
	if err != nil || got.Status != approval.Rejected || !got.Decision.Expired {
		t.Fatalf("Wait = %+v, %v; want the default outcome at the deadline", got, err)
	}
}

func TestWaitWakesOnDecision(t *testing.T) {
	g := newGate(t, approval.Config{})
	r := submit(t, g, approval.Submission{})
	done := make(chan approval.Request)
	for range 3 {
		go func() {
			got, err := g.Wait(context.Background(), r.ID, time.Minute)
			if err != nil {
				t.Error(err)
			}
			done <- got
		}()
	}
	// Waiters that have not registered yet read the decision from the store: either way works.
	mod := items("Change it", "Read the code", "Test it twice")
	if _, err := g.Decide(context.Background(), r.ID, approval.DecisionInput{Action: approval.Modify, Plan: &mod, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got := testkit.Recv(t, done, 30*time.Second, "decision for a waiter")
		if got.Status != approval.Modified || !got.Decision.Plan.Equal(mod) || got.Decision.By != "ann" {
			t.Fatalf("waiter got %+v", got)
		}
	}
	// A short wait on a pending request returns it pending.
	r2 := submit(t, g, approval.Submission{})
	if got, err := g.Wait(context.Background(), r2.ID, 10*time.Millisecond); err != nil || got.Status != approval.Pending {
		t.Fatalf("short wait = %+v, %v", got, err)
	}
}

func TestExactlyOneOfFiftyDecidersWins(t *testing.T) {
	ctx := context.Background()
	g := newGate(t, approval.Config{})
	r := submit(t, g, approval.Submission{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var wins []approval.Request
	conflicts := 0
	start := make(chan struct{})
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := approval.DecisionInput{By: fmt.Sprintf("person-%d", i), Key: fmt.Sprintf("key-%d", i), Comment: "reason " + fmt.Sprint(i)}
			switch i % 3 {
			case 0:
				in.Action = approval.Approve
			case 1:
				in.Action = approval.Reject
			default:
				p := items("Only this", fmt.Sprint(i))
				in.Action, in.Plan = approval.Modify, &p
			}
			<-start
			got, err := g.Decide(ctx, r.ID, in)
			mu.Lock()
			defer mu.Unlock()
			var de *approval.DecidedError
			switch {
			case err == nil:
				wins = append(wins, got)
			case errors.As(err, &de) && errs.KindOf(err) == errs.Conflict:
				conflicts++
			default:
				t.Errorf("decider %d: %v", i, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(wins) != 1 || conflicts != 49 {
		t.Fatalf("%d wins and %d conflicts, want 1 and 49", len(wins), conflicts)
	}
	stored, _ := g.Get(ctx, r.ID)
	if stored.Decision.By != wins[0].Decision.By || stored.Status != wins[0].Status {
		t.Fatalf("stored decision %+v is not the winner's %+v", stored.Decision, wins[0].Decision)
	}
	ev, _ := g.Audit(ctx, approval.AuditFilter{})
	if n := countEvents(ev, approval.EventApproved, approval.EventModified, approval.EventRejected); n != 1 {
		t.Fatalf("%d decisions in the audit trail, want 1", n)
	}
	// The winner repeating its own decision (same key) gets it again; anyone else a conflict.
	w := wins[0].Decision
	again := approval.DecisionInput{Action: w.Action, Plan: w.Plan, Comment: w.Comment, Key: w.Key, By: w.By}
	if w.Action == approval.Approve {
		again.Plan = nil
	}
	if _, err := g.Decide(ctx, r.ID, again); err != nil {
		t.Fatalf("winner's retry: %v", err)
	}
	again.By = "someone else"
	if _, err := g.Decide(ctx, r.ID, again); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("another person's retry with the winner's key: %v", err)
	}
}

func countEvents(ev []approval.AuditEvent, kinds ...string) int {
	n := 0
	for _, e := range ev {
		for _, k := range kinds {
			if e.Event == k {
				n++
			}
		}
	}
	return n
}

// TestDecisionByAnotherGateWhileOneWaits: a gate that holds a request as its waiter read it
// (pending) still lets only the first decision win when another gate on the same store (another
// instance) decided it meanwhile: the late one gets the winner, and a retry of the winner's own
// decision gets its answer.
func TestDecisionByAnotherGateWhileOneWaits(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir())
	t.Cleanup(func() { st.Close() })
	here, there := gateOn(t, st, approval.Config{}), gateOn(t, st, approval.Config{})
	r := submit(t, here, approval.Submission{})
	waitCtx, stop := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() {
		_, err := here.Wait(waitCtx, r.ID, time.Minute)
		waited <- err
	}()
	for here.Waiting(r.ID) == 0 {
		time.Sleep(time.Millisecond)
	}
	won, err := there.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "bob", Key: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = here.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "no"})
	var de *approval.DecidedError
	if !errors.As(err, &de) || de.Request.Status != approval.Approved || de.Request.Decision.By != "bob" {
		t.Fatalf("late decision: %v; want a conflict carrying bob's approval", err)
	}
	again, err := here.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "bob", Key: "k1"})
	if err != nil || again.Seq != won.Seq {
		t.Fatalf("the winner's retry here = %+v, %v; want its answer", again, err)
	}
	if ev, _ := here.Audit(ctx, approval.AuditFilter{}); countEvents(ev, approval.EventApproved, approval.EventRejected) != 1 {
		t.Fatalf("audit %+v: want one decision", ev)
	}
	stop()
	testkit.Recv(t, waited, 30*time.Second, "the waiter's end")
}

// TestRunMeetsANearerDeadline: the deadline loop, asleep until a far deadline, wakes for a
// request due sooner, and one due later than its next look needs no wake to be met in time.
// Nobody waits on them or reads them (a waiter or a read applies a passed deadline itself):
// the outcomes are heard as the gate's changes.
func TestRunMeetsANearerDeadline(t *testing.T) {
	g := newGate(t, approval.Config{})
	expired := make(chan approval.Request, 8)
	g.OnChange(func(c approval.Change) {
		if c.Request != nil && c.Request.Decision != nil && c.Request.Decision.Expired {
			expired <- *c.Request
		}
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { g.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	submit(t, g, approval.Submission{Timeout: approval.Duration(time.Hour)})
	// Run reads the far deadline and sleeps (a minute at most) before the near one is stored.
	time.Sleep(50 * time.Millisecond)
	near := submit(t, g, approval.Submission{Timeout: approval.Duration(time.Second), Default: approval.Approve})
	later := submit(t, g, approval.Submission{Timeout: approval.Duration(2 * time.Second)})
	for _, want := range []struct {
		r      approval.Request
		status approval.Status
	}{{near, approval.Approved}, {later, approval.Rejected}} {
		r := testkit.Recv(t, expired, 10*time.Second, "the request due at "+want.r.Deadline.Format(time.StampMilli))
		if r.ID != want.r.ID || r.Status != want.status {
			t.Fatalf("expired %s (%s); want %s to be %s by its deadline", r.ID, r.Status, want.r.ID, want.status)
		}
	}
}

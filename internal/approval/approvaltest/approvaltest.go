// Package approvaltest states the approval.Store contract as tests. Every implementation runs
// them:
//
//	func TestApprovalContract(t *testing.T) { approvaltest.Run(t, openApprovals) }
package approvaltest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// Run runs the contract suite. open returns an empty store that lives until the test ends.
func Run(t *testing.T, open func(t *testing.T) approval.Store) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, approval.Store)
	}{
		{"round trip and not found", testRoundTrip},
		{"Create is idempotent on id", testCreateIdempotent},
		{"Decide once", testDecideOnce},
		{"Decide exactly once among concurrent deciders", testConcurrentDecide},
		{"pending, decided and counts", testLists},
		{"Due and NextDeadline", testDeadlines},
		{"rules", testRules},
		{"audit filters and order", testAudit},
		{"Seq", testSeq},
		{"NextSeq, for stores that number changes", testNextSeq},
		{"changes requested with feedback", testChangesRequested},
		{"LatestInSession", testLatestInSession},
		{"handed over to the agent's dialog, then settled", testElsewhere},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
	for _, tc := range listTests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

// t0 is the suite's clock; times are UTC so they compare with reflect.DeepEqual after any
// faithful round trip.
var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func request(id string, created, deadline int) approval.Request {
	return approval.Request{ID: id, Status: approval.Pending, SessionID: "sess-" + id, Agent: "agent", Title: "Plan " + id,
		Context: "why", Plan: approval.PlanBody{Type: approval.TypeItems, Entries: []plans.Entry{{Content: "a", Priority: "high", Status: "pending"}, {Content: "b", Priority: "low", Status: "pending"}}},
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject}, Default: approval.Reject,
		Created: at(created), Deadline: at(deadline), Seq: uint64(created + 1), Fingerprint: "fp-" + id, SubmittedBy: "token:bot-" + id}
}

func requested(r approval.Request) []approval.AuditEvent {
	return []approval.AuditEvent{{At: r.Created, Event: approval.EventRequested, RequestID: r.ID, SessionID: r.SessionID, Agent: r.Agent, Title: r.Title}}
}

func create(t *testing.T, s approval.Store, r approval.Request) {
	t.Helper()
	if _, created, err := s.Create(context.Background(), r, requested(r)); err != nil || !created {
		t.Fatalf("Create(%q) = %v, %v; want created", r.ID, created, err)
	}
}

// decided is r decided with action at sec, by who.
func decided(r approval.Request, action approval.Action, sec int, who string) approval.Request {
	r.Status = action.Status()
	r.Decision = &approval.Decision{Action: action, By: who, At: at(sec), Comment: "because " + who, Key: "key-" + who}
	if action == approval.Modify {
		p := approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# changed by " + who}
		r.Decision.Plan = &p
	}
	r.Seq += 1000
	return r
}

func decisionEvent(r approval.Request) []approval.AuditEvent {
	return []approval.AuditEvent{{At: r.Decision.At, Event: string(r.Status), RequestID: r.ID, SessionID: r.SessionID, Agent: r.Agent, By: r.Decision.By}}
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func ids(rs []approval.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func testRoundTrip(t *testing.T, s approval.Store) {
	ctx := context.Background()
	for _, r := range []approval.Request{
		request("items", 1, 100),
		func() approval.Request {
			r := request("md", 2, 100)
			r.Plan = approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Plan\n\n1. x\n2. y"}
			r.Options, r.Default = []approval.Action{approval.Approve, approval.Reject}, approval.Approve
			return r
		}(),
		func() approval.Request {
			r := request("dag", 3, 100)
			r.Plan = approval.PlanBody{Type: approval.TypeDAG, Calls: []byte(`[{"id":"a","tool":"t"}]`), State: []byte(`{"a":"done"}`)}
			return r
		}(),
	} {
		create(t, s, r)
		got, err := s.Get(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "Get "+r.ID, got, r)
	}
	if _, err := s.Get(ctx, "nope"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Get(unknown) = %v, want kind NotFound", err)
	}
	if _, err := s.Rule(ctx, "nope"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Rule(unknown) = %v, want kind NotFound", err)
	}
}

func testCreateIdempotent(t *testing.T, s approval.Store) {
	ctx := context.Background()
	first := request("r", 1, 100)
	create(t, s, first)
	retry := request("r", 5, 500)
	retry.Title = "something else"
	got, created, err := s.Create(ctx, retry, requested(retry))
	if err != nil || created {
		t.Fatalf("Create again = %v, %v; want not created", created, err)
	}
	same(t, "Create again returns the stored request", got, first)
	if n, err := s.CountPending(ctx); err != nil || n != 1 {
		t.Fatalf("CountPending = %d, %v", n, err)
	}
	ev, err := s.Audit(ctx, approval.AuditFilter{Limit: 100})
	if err != nil || len(ev) != 1 {
		t.Fatalf("Audit = %d events, %v; want only the first creation's", len(ev), err)
	}
}

func testDecideOnce(t *testing.T, s approval.Store) {
	ctx := context.Background()
	r := request("r", 1, 100)
	create(t, s, r)
	win := decided(r, approval.Modify, 10, "ann")
	if ok, err := s.Decide(ctx, win, decisionEvent(win)); err != nil || !ok {
		t.Fatalf("Decide = %v, %v; want true", ok, err)
	}
	late := decided(r, approval.Reject, 11, "bob")
	if ok, err := s.Decide(ctx, late, decisionEvent(late)); err != nil || ok {
		t.Fatalf("second Decide = %v, %v; want false", ok, err)
	}
	got, err := s.Get(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "stored decision", got, win)
	ev, err := s.Audit(ctx, approval.AuditFilter{Limit: 100})
	if err != nil || len(ev) != 2 || ev[0].Event != approval.EventModified {
		t.Fatalf("Audit = %+v, %v; want the request and the one decision", ev, err)
	}
	missing := decided(request("missing", 1, 100), approval.Approve, 1, "ann")
	if ok, err := s.Decide(ctx, missing, decisionEvent(missing)); err != nil || ok {
		t.Fatalf("Decide(unknown) = %v, %v; want false", ok, err)
	}
}

func testConcurrentDecide(t *testing.T, s approval.Store) {
	ctx := context.Background()
	r := request("r", 1, 100)
	create(t, s, r)
	const n = 20
	type result struct {
		who string
		ok  bool
		err error
	}
	results := make(chan result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := fmt.Sprintf("person-%d", i)
			d := decided(r, []approval.Action{approval.Approve, approval.Reject, approval.Modify}[i%3], 10+i, who)
			<-start
			ok, err := s.Decide(ctx, d, decisionEvent(d))
			results <- result{who, ok, err}
		}()
	}
	close(start)
	wg.Wait()
	close(results)
	var winners []string
	for res := range results {
		if res.err != nil {
			t.Errorf("%s: %v", res.who, res.err)
		}
		if res.ok {
			winners = append(winners, res.who)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("winners = %v, want exactly one", winners)
	}
	got, err := s.Get(ctx, "r")
	if err != nil || got.Decision == nil || got.Decision.By != winners[0] {
		t.Fatalf("stored = %+v, %v; want %s's decision", got.Decision, err, winners[0])
	}
	ev, err := s.Audit(ctx, approval.AuditFilter{Limit: 100})
	if err != nil || len(ev) != 2 || ev[0].By != winners[0] {
		t.Fatalf("Audit = %+v, %v; want the request and the winner's decision only", ev, err)
	}
}

func testLists(t *testing.T, s approval.Store) {
	ctx := context.Background()
	// Created out of order; c and a are decided, in that order.
	for _, r := range []approval.Request{request("b", 2, 100), request("a", 1, 100), request("d", 4, 100), request("c", 3, 100), request("e", 3, 100)} {
		create(t, s, r)
	}
	for i, id := range []string{"c", "a"} {
		r, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		d := decided(r, approval.Approve, 10+i, "ann")
		if ok, err := s.Decide(ctx, d, decisionEvent(d)); err != nil || !ok {
			t.Fatalf("Decide(%s) = %v, %v", id, ok, err)
		}
	}
	// Oldest first.
	for _, tt := range []struct {
		limit int
		want  []string
	}{{0, []string{"b", "e", "d"}}, {-1, []string{"b", "e", "d"}}, {2, []string{"b", "e"}}} {
		got, err := s.Pending(ctx, tt.limit)
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Fatalf("Pending(%d) = %v, %v; want %v", tt.limit, ids(got), err, tt.want)
		}
	}
	sums, err := s.PendingSummaries(ctx)
	if err != nil || len(sums) != 3 {
		t.Fatalf("PendingSummaries = %d, %v", len(sums), err)
	}
	pending, err := s.Pending(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range sums {
		want := pending[i].Summary()
		if !got.Created.Equal(want.Created) || !got.Deadline.Equal(want.Deadline) {
			t.Fatalf("summary %s times = %v, %v; want %v, %v", got.ID, got.Created, got.Deadline, want.Created, want.Deadline)
		}
		got.Created, got.Deadline, want.Created, want.Deadline = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		same(t, "summary", got, want)
	}
	if n, err := s.CountPending(ctx); err != nil || n != 3 {
		t.Fatalf("CountPending = %d, %v", n, err)
	}
	for _, tt := range []struct {
		limit int
		want  []string
	}{{10, []string{"a", "c"}}, {1, []string{"a"}}} {
		got, err := s.Decided(ctx, tt.limit)
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Fatalf("Decided(%d) = %v, %v; want %v (most recently decided first)", tt.limit, ids(got), err, tt.want)
		}
	}
}

func testDeadlines(t *testing.T, s approval.Store) {
	ctx := context.Background()
	if _, ok, err := s.NextDeadline(ctx); err != nil || ok {
		t.Fatalf("NextDeadline with nothing pending = %v, %v", ok, err)
	}
	for _, r := range []approval.Request{request("late", 1, 300), request("soon", 2, 100), request("mid", 3, 200), request("done", 0, 50)} {
		create(t, s, r)
	}
	done := decided(request("done", 0, 50), approval.Approve, 1, "ann")
	if ok, err := s.Decide(ctx, done, decisionEvent(done)); err != nil || !ok {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	next, ok, err := s.NextDeadline(ctx)
	if err != nil || !ok || !next.Equal(at(100)) {
		t.Fatalf("NextDeadline = %v, %v, %v; want %v (decided requests do not count)", next, ok, err, at(100))
	}
	for _, tt := range []struct {
		now, limit int
		want       []string
	}{
		{99, 10, nil},
		{100, 10, []string{"soon"}}, // at the deadline is due
		{250, 10, []string{"soon", "mid"}},
		{1000, 2, []string{"soon", "mid"}},
	} {
		got, err := s.Due(ctx, at(tt.now), tt.limit)
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Fatalf("Due(%d, %d) = %v, %v; want %v (earliest deadline first)", tt.now, tt.limit, ids(got), err, tt.want)
		}
	}
}

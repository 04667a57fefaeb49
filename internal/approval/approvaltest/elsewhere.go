package approvaltest

import (
	"context"
	"slices"
	"testing"

	"github.com/plandash/plandash/internal/approval"
)

// testElsewhere: a request handed over to the agent's own dialog leaves every pending list and
// the deadlines, is listed as Elsewhere, refuses a decision that does not settle it, and is
// settled once.
func testElsewhere(t *testing.T, s approval.Store) {
	ctx := context.Background()
	open, other := request("open", 1, 100), request("other", 2, 100)
	other.Then = "the terminal decides"
	create(t, s, open)
	create(t, s, other)
	handed := open
	handed.Status, handed.Seq = approval.Elsewhere, 500
	handed.Handover = &approval.Handover{By: "terminal", At: at(5), Note: "answered in the terminal — outcome not known yet"}
	ev := []approval.AuditEvent{{At: at(5), Event: approval.EventElsewhere, RequestID: open.ID, SessionID: open.SessionID, Agent: open.Agent, By: "terminal"}}
	if ok, err := s.Decide(ctx, handed, ev); err != nil || !ok {
		t.Fatalf("Decide(handed over) = %v, %v; want stored", ok, err)
	}
	got, err := s.Get(ctx, open.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the request handed over", got, handed)
	if ok, err := s.Decide(ctx, handed, ev); err != nil || ok {
		t.Fatalf("Decide(handed over, again) = %v, %v; want refused: it is no longer pending", ok, err)
	}
	if l, err := s.Elsewhere(ctx); err != nil || !slices.Equal(ids(l), []string{"open"}) {
		t.Fatalf("Elsewhere = %v, %v; want [open]", ids(l), err)
	}
	if l, err := s.Pending(ctx, 0); err != nil || !slices.Equal(ids(l), []string{"other"}) {
		t.Fatalf("Pending = %v, %v; want [other]", ids(l), err)
	}
	if sums, err := s.PendingSummaries(ctx); err != nil || len(sums) != 1 || sums[0].ID != "other" || sums[0].Then != other.Then {
		t.Fatalf("PendingSummaries = %+v, %v; want other only, saying what its deadline does (then)", sums, err)
	}
	if n, err := s.CountPending(ctx); err != nil || n != 1 {
		t.Fatalf("CountPending = %d, %v; want 1", n, err)
	}
	if due, err := s.Due(ctx, at(1000), 10); err != nil || !slices.Equal(ids(due), []string{"other"}) {
		t.Fatalf("Due = %v, %v; want [other]: a handed-over request has no deadline left", ids(due), err)
	}
	if l, err := s.Decided(ctx, 10); err != nil || len(l) != 0 {
		t.Fatalf("Decided = %v, %v; want none: the outcome is not known yet", ids(l), err)
	}

	// A person's decision read the request while it was pending: it must not land.
	person := decided(open, approval.Approve, 6, "ann")
	if ok, err := s.Decide(ctx, person, decisionEvent(person)); err != nil || ok {
		t.Fatalf("Decide(a person's, after the hand-over) = %v, %v; want refused", ok, err)
	}
	settled := decided(handed, approval.Reject, 7, "terminal")
	if !settled.Settles() {
		t.Fatal("a handed-over request decided does not settle it")
	}
	if ok, err := s.Decide(ctx, settled, decisionEvent(settled)); err != nil || !ok {
		t.Fatalf("Decide(settled) = %v, %v; want stored", ok, err)
	}
	if ok, err := s.Decide(ctx, settled, decisionEvent(settled)); err != nil || ok {
		t.Fatalf("Decide(settled, again) = %v, %v; want refused: settled once", ok, err)
	}
	got, err = s.Get(ctx, open.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the request settled", got, settled)
	if l, err := s.Elsewhere(ctx); err != nil || len(l) != 0 {
		t.Fatalf("Elsewhere after settling = %v, %v; want none", ids(l), err)
	}
	if l, err := s.Decided(ctx, 10); err != nil || !slices.Equal(ids(l), []string{"open"}) {
		t.Fatalf("Decided = %v, %v; want [open]", ids(l), err)
	}
	// A settlement of a request that is still pending is an ordinary decision.
	direct := decided(other, approval.Approve, 8, "terminal")
	direct.Handover = &approval.Handover{By: "terminal", At: at(8), Note: "x"}
	if ok, err := s.Decide(ctx, direct, decisionEvent(direct)); err != nil || !ok {
		t.Fatalf("Decide(settling a pending request) = %v, %v; want stored", ok, err)
	}
}

package approval_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/testkit"
)

// A request answered in the agent's own dialog is no longer decided here, is listed as such,
// and is settled by the agent's next event; nobody's answer lands in between.
func TestHandOverThenSettle(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	g := newGate(t, approval.Config{Now: clk.Now})
	r := submit(t, g, approval.Submission{Agent: "Claude Code", Then: "the terminal decides", Timeout: approval.Duration(time.Hour)})
	waited := make(chan approval.Request, 1)
	go func() {
		got, _ := g.Wait(ctx, r.ID, time.Minute)
		waited <- got
	}()
	h, err := g.HandOver(ctx, r.ID, "terminal", "answered in the terminal — outcome not known yet")
	if err != nil || h.Status != approval.Elsewhere || h.Decision != nil || h.Handover == nil || h.Handover.By != "terminal" {
		t.Fatalf("HandOver = %+v, %v", h, err)
	}
	if got := testkit.Recv(t, waited, 30*time.Second, "a waiter woken by the hand-over"); got.Status != approval.Elsewhere {
		t.Fatalf("waiter got %s", got.Status)
	}
	if n, _ := g.CountPending(ctx); n != 0 {
		t.Fatalf("%d pending after the hand-over", n)
	}
	if l, err := g.Elsewhere(ctx); err != nil || len(l) != 1 || l[0].ID != r.ID {
		t.Fatalf("Elsewhere = %v, %v", l, err)
	}
	_, err = g.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "ann"})
	var de *approval.DecidedError
	if !errors.As(err, &de) || errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "answered in the terminal") {
		t.Fatalf("a person's decision after the hand-over: %v; want a conflict that says where it was answered", err)
	}
	// Its deadline passing changes nothing: the terminal has it.
	clk.Add(2 * time.Hour)
	if n, err := g.ExpireDue(ctx); err != nil || n != 0 {
		t.Fatalf("ExpireDue = %d, %v", n, err)
	}
	if got, _ := g.Get(ctx, r.ID); got.Status != approval.Elsewhere {
		t.Fatalf("after its deadline the request is %s", got.Status)
	}
	s, err := g.Settle(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "terminal", Comment: "answered in the terminal — approved"})
	if err != nil || s.Status != approval.Approved || s.Decision.By != "terminal" || s.Handover == nil || s.Decision.Plan == nil {
		t.Fatalf("Settle = %+v, %v", s, err)
	}
	if _, err := g.Settle(ctx, r.ID, approval.DecisionInput{Action: approval.Reject, By: "terminal", Comment: "late"}); !errors.As(err, &de) {
		t.Fatalf("a second Settle = %v; want a conflict", err)
	}
	ev, _ := g.Audit(ctx, approval.AuditFilter{})
	if countEvents(ev, approval.EventElsewhere) != 1 || countEvents(ev, approval.EventApproved) != 1 {
		t.Fatalf("audit: %+v", ev)
	}
}

// A request whose agent decides by itself at the deadline (Then) is not recorded as the gate's
// default: it goes to that dialog, outcome not known, until the agent's next event settles it.
func TestDeadlineHandsOverWhenTheAgentDecides(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	g := newGate(t, approval.Config{Now: clk.Now})
	r := submit(t, g, approval.Submission{Then: "the terminal decides", Timeout: approval.Duration(time.Minute)})
	clk.Add(time.Minute)
	got, err := g.Get(ctx, r.ID)
	if err != nil || got.Status != approval.Elsewhere || got.Decision != nil || got.Handover == nil ||
		got.Handover.By != "deadline" || got.Handover.Note != "the terminal decides — outcome not known yet" {
		t.Fatalf("after the deadline: %+v %+v, %v; want handed to the terminal, no decision", got, got.Handover, err)
	}
	ev, _ := g.Audit(ctx, approval.AuditFilter{})
	if countEvents(ev, approval.EventExpired) != 0 || countEvents(ev, approval.EventElsewhere) != 1 ||
		!strings.Contains(ev[0].Comment, "nobody decided here before the deadline") {
		t.Fatalf("audit: %+v; want one hand-over, no expiry", ev)
	}
	s, err := g.Settle(ctx, r.ID, approval.DecisionInput{Action: approval.Reject, By: "terminal", Comment: "declined in the terminal"})
	if err != nil || s.Status != approval.Rejected || s.Decision.Expired {
		t.Fatalf("Settle = %+v, %v", s, err)
	}
}

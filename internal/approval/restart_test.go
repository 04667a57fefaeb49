package approval_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/testkit"
)

// TestSubmitterIsStoredWithTheRequest: the token that submitted a request is part of it, so a
// stop right after Submit cannot leave the request without it.
func TestSubmitterIsStoredWithTheRequest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, dir)
	g := gateOn(t, st, approval.Config{})
	byToken, _, err := g.Submit(plans.WithSource(ctx, "token:laptop-1"), approval.Submission{Title: "by a token", Agent: "ci", Plan: items("Ship")})
	if err != nil || byToken.SubmittedBy != "token:laptop-1" {
		t.Fatalf("Submit with a token = %+v, %v", byToken, err)
	}
	own := submit(t, g, approval.Submission{Title: "by the server's own token"})
	st.Close()

	st = openStore(t, dir)
	defer st.Close()
	for id, want := range map[string]string{byToken.ID: "token:laptop-1", own.ID: ""} {
		if r, err := st.Approvals().Get(ctx, id); err != nil || r.SubmittedBy != want {
			t.Fatalf("after a restart, %s = %+v, %v; want submitted by %q", id, r, err, want)
		}
	}
	audit, err := st.Approvals().Audit(ctx, approval.AuditFilter{Agent: "ci", Limit: 10})
	if err != nil || len(audit) != 1 || audit[0].By != "token:laptop-1" {
		t.Fatalf("audit = %+v, %v; want the request, by the token", audit, err)
	}
}

func TestRestartKeepsPendingAndDecided(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, dir)
	g := gateOn(t, st, approval.Config{})
	a := submit(t, g, approval.Submission{Title: "first"})
	b := submit(t, g, approval.Submission{Title: "second"})
	c := submit(t, g, approval.Submission{Title: "third", Timeout: approval.Duration(time.Second)})
	if _, err := g.Decide(ctx, b.ID, approval.DecisionInput{Action: approval.Reject, Comment: "too risky", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	seq := g.Seq()
	st.Close()

	// The server comes back after c's deadline passed while it was down.
	clk := &clock{t: time.Now().Add(2 * time.Second)}
	st = openStore(t, dir)
	defer st.Close()
	g = gateOn(t, st, approval.Config{Now: clk.Now})
	if g.Seq() != seq {
		t.Fatalf("seq after restart = %d, want %d", g.Seq(), seq)
	}
	if n, err := g.ExpireDue(ctx); err != nil || n != 1 {
		t.Fatalf("ExpireDue after restart = %d, %v", n, err)
	}
	pending, _ := g.Pending(ctx)
	if len(pending) != 1 || pending[0].ID != a.ID {
		t.Fatalf("pending after restart = %v, want only %s", ids(pending), a.ID)
	}
	if r, _ := g.Get(ctx, b.ID); r.Status != approval.Rejected || r.Decision.Comment != "too risky" {
		t.Fatalf("decided request after restart: %+v", r)
	}
	if r, _ := g.Get(ctx, c.ID); r.Status != approval.Rejected || !r.Decision.Expired {
		t.Fatalf("request whose deadline passed while down: %+v", r)
	}
	// A waiter on the surviving request is woken by a decision made after the restart.
	done := make(chan approval.Request, 1)
	go func() {
		r, _ := g.Wait(ctx, a.ID, time.Minute)
		done <- r
	}()
	if _, err := g.Decide(ctx, a.ID, approval.DecisionInput{Action: approval.Approve, By: "bob"}); err != nil {
		t.Fatal(err)
	}
	if r := testkit.Recv(t, done, 30*time.Second, "decision for the waiter"); r.Status != approval.Approved || r.Decision.By != "bob" || r.Seq <= seq {
		t.Fatalf("waiter after restart got %+v (seq %d, before restart %d)", r.Decision, r.Seq, seq)
	}
}

func ids(rs []approval.Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestSubmitIsIdempotentByID(t *testing.T) {
	ctx := context.Background()
	g := newGate(t, approval.Config{})
	sub := approval.Submission{ID: "deploy-42", Title: "Deploy", Plan: items("Build", "Ship")}
	first := submit(t, g, sub)
	again, created, err := g.Submit(ctx, sub)
	if err != nil || created || again.ID != "deploy-42" || !again.Created.Equal(first.Created) {
		t.Fatalf("resubmission = %+v, created=%v, %v", again, created, err)
	}
	sub.Title = "Deploy something else"
	if _, _, err := g.Submit(ctx, sub); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("different request under a used id: %v", err)
	}
}

func TestDecisionRules(t *testing.T) {
	ctx := context.Background()
	g := newGate(t, approval.Config{})
	r := submit(t, g, approval.Submission{Options: []approval.Action{approval.Approve, approval.Reject}})
	tests := []struct {
		name string
		in   approval.DecisionInput
		kind errs.Kind
		want string
	}{
		{"unknown action", approval.DecisionInput{Action: "maybe"}, errs.Invalid, "not one"},
		{"modify forbidden", approval.DecisionInput{Action: approval.Modify, Plan: &approval.PlanBody{}}, errs.Invalid, "does not allow modify"},
		{"reject without reason", approval.DecisionInput{Action: approval.Reject, Comment: "  "}, errs.Invalid, "needs a reason"},
		{"long comment", approval.DecisionInput{Action: approval.Approve, Comment: strings.Repeat("é", approval.MaxComment+1)}, errs.TooLarge, "limit is 4000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.By = "ann"
			_, err := g.Decide(ctx, r.ID, tt.in)
			if errs.KindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want kind %d containing %q", err, tt.kind, tt.want)
			}
		})
	}
	if _, err := g.Decide(ctx, "nope", approval.DecisionInput{Action: approval.Approve}); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("unknown id: %v", err)
	}

	m := submit(t, g, approval.Submission{})
	bad := approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "x"}
	if _, err := g.Decide(ctx, m.ID, approval.DecisionInput{Action: approval.Modify, Plan: &bad, By: "ann"}); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("modify to another plan type: %v", err)
	}
	empty := approval.PlanBody{Type: approval.TypeItems}
	if _, err := g.Decide(ctx, m.ID, approval.DecisionInput{Action: approval.Modify, Plan: &empty, By: "ann"}); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("modify to an empty checklist: %v", err)
	}
	// A "modification" that changes nothing is recorded as what it is: an approval.
	same := m.Plan
	got, err := g.Decide(ctx, m.ID, approval.DecisionInput{Action: approval.Modify, Plan: &same, By: "ann"})
	if err != nil || got.Status != approval.Approved {
		t.Fatalf("unchanged modification = %s, %v", got.Status, err)
	}
}

func TestAutoApproveRules(t *testing.T) {
	ctx := context.Background()
	g := newGate(t, approval.Config{})
	if _, err := g.AddRule(ctx, approval.Rule{}, "ann"); errs.KindOf(err) != errs.Invalid {
		t.Fatalf("a rule matching everything: %v", err)
	}
	rule, err := g.AddRule(ctx, approval.Rule{Agent: "linter-bot", Kind: approval.TypeItems}, "ann")
	if err != nil {
		t.Fatal(err)
	}
	auto := submit(t, g, approval.Submission{Agent: "linter-bot", SessionID: "s1"})
	if auto.Status != approval.Approved || auto.Decision.Rule != rule.ID || auto.Decision.Plan == nil {
		t.Fatalf("matching request = %s %+v", auto.Status, auto.Decision)
	}
	if r := submit(t, g, approval.Submission{Agent: "other", SessionID: "s2"}); r.Status != approval.Pending {
		t.Fatalf("request from another agent = %s", r.Status)
	}
	if r := submit(t, g, approval.Submission{Agent: "linter-bot", Plan: approval.PlanBody{Type: "markdown", Markdown: "x"}}); r.Status != approval.Pending {
		t.Fatalf("markdown request from the agent = %s", r.Status)
	}
	// A request that forbids approval is never auto-approved.
	if r := submit(t, g, approval.Submission{Agent: "linter-bot", Options: []approval.Action{approval.Reject}}); r.Status != approval.Pending {
		t.Fatalf("request without approve = %s", r.Status)
	}
	if _, err := g.RevokeRule(ctx, rule.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.RevokeRule(ctx, rule.ID, "bob"); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("revoking twice: %v", err)
	}
	if r := submit(t, g, approval.Submission{Agent: "linter-bot"}); r.Status != approval.Pending {
		t.Fatalf("after revoking = %s", r.Status)
	}
	ev, _ := g.Audit(ctx, approval.AuditFilter{Agent: "linter-bot"})
	var autoEv approval.AuditEvent
	for _, e := range ev {
		if e.Event == approval.EventAutoApproved {
			autoEv = e
		}
		if e.Agent != "linter-bot" {
			t.Fatalf("filtered audit has an event of %q", e.Agent)
		}
	}
	if autoEv.RuleID != rule.ID || autoEv.RequestID != auto.ID {
		t.Fatalf("auto-approval audit event = %+v", autoEv)
	}
	if countEvents(ev, approval.EventRuleAdded, approval.EventRuleRevoked) != 2 {
		t.Fatalf("rule events missing from the audit trail: %+v", ev)
	}
	ev, _ = g.Audit(ctx, approval.AuditFilter{SessionID: "s2"})
	if len(ev) != 1 || ev[0].Event != approval.EventRequested || ev[0].Agent != "other" {
		t.Fatalf("audit for session s2 = %+v", ev)
	}
	all, _ := g.Rules(ctx, true)
	if len(all) != 1 || all[0].Active() || all[0].RevokedBy != "bob" {
		t.Fatalf("rules = %+v", all)
	}
}

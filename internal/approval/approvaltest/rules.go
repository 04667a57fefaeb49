package approvaltest

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/plandash/plandash/internal/approval"
)

func testRules(t *testing.T, s approval.Store) {
	ctx := context.Background()
	old := approval.Rule{ID: "old", Agent: "claude", Machine: "devbox", Cwd: "/home/ann/src", Note: "trusted", CreatedBy: "ann", Created: at(1), Seq: 1}
	mid := approval.Rule{ID: "mid", Kind: "markdown", CreatedBy: "ann", Created: at(2), Seq: 2}
	newest := approval.Rule{ID: "new", SessionID: "s1", CreatedBy: "bob", Created: at(3), Seq: 3}
	for _, r := range []approval.Rule{old, mid, newest} {
		if err := s.PutRule(ctx, r, approval.AuditEvent{At: r.Created, Event: approval.EventRuleAdded, RuleID: r.ID, By: r.CreatedBy}); err != nil {
			t.Fatal(err)
		}
	}
	mid.RevokedBy, mid.Revoked, mid.Seq = "bob", at(4), 4
	if err := s.PutRule(ctx, mid, approval.AuditEvent{At: mid.Revoked, Event: approval.EventRuleRevoked, RuleID: mid.ID, By: mid.RevokedBy}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Rule(ctx, "mid")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "revoked rule", got, mid)
	if got, err := s.Rule(ctx, "old"); err != nil || !reflect.DeepEqual(got, old) {
		t.Fatalf("Rule(old) = %+v, %v", got, err)
	}
	for _, tt := range []struct {
		withRevoked bool
		want        []string
	}{{false, []string{"new", "old"}}, {true, []string{"new", "mid", "old"}}} {
		rules, err := s.Rules(ctx, tt.withRevoked)
		var got []string
		for _, r := range rules {
			got = append(got, r.ID)
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Fatalf("Rules(%v) = %v, %v; want %v (newest first)", tt.withRevoked, got, err, tt.want)
		}
	}
	ev, err := s.Audit(ctx, approval.AuditFilter{Limit: 10})
	if err != nil || len(ev) != 4 || ev[0].Event != approval.EventRuleRevoked || ev[0].RuleID != "mid" {
		t.Fatalf("Audit = %+v, %v; want every rule change, the revocation first", ev, err)
	}
}

func testAudit(t *testing.T, s approval.Store) {
	ctx := context.Background()
	var all []approval.AuditEvent
	for i, r := range []approval.Request{
		{ID: "1", SessionID: "s1", Agent: "claude"},
		{ID: "2", SessionID: "s2", Agent: "claude"},
		{ID: "3", SessionID: "s1", Agent: "codex"},
		{ID: "4", SessionID: "s2", Agent: "codex"},
	} {
		full := request(r.ID, i, 100)
		full.SessionID, full.Agent = r.SessionID, r.Agent
		ev := requested(full)
		ev[0].Comment = "note " + r.ID
		ev[0].Before = &full.Plan
		if _, _, err := s.Create(ctx, full, ev); err != nil {
			t.Fatal(err)
		}
		all = append(all, ev...)
	}
	got, err := s.Audit(ctx, approval.AuditFilter{Limit: 100})
	if err != nil || len(got) != 4 {
		t.Fatalf("Audit = %d events, %v", len(got), err)
	}
	for i, ev := range got {
		if i > 0 && ev.ID >= got[i-1].ID {
			t.Fatalf("Audit IDs are not newest first: %d after %d", ev.ID, got[i-1].ID)
		}
		want := all[len(all)-1-i]
		want.ID = ev.ID
		same(t, "audit event", ev, want)
	}
	for _, tt := range []struct {
		f    approval.AuditFilter
		want []string
	}{
		{approval.AuditFilter{SessionID: "s1", Limit: 10}, []string{"3", "1"}},
		{approval.AuditFilter{Agent: "codex", Limit: 10}, []string{"4", "3"}},
		{approval.AuditFilter{SessionID: "s2", Agent: "claude", Limit: 10}, []string{"2"}},
		// By canonical id (agentid): "Claude Code" and "claude-code" name what "claude" stored.
		{approval.AuditFilter{Agent: "Claude Code", Limit: 10}, []string{"2", "1"}},
		{approval.AuditFilter{Agent: "codex-acp", Limit: 10}, []string{"4", "3"}},
		{approval.AuditFilter{SessionID: "nobody", Limit: 10}, nil},
		{approval.AuditFilter{Limit: 3}, []string{"4", "3", "2"}},
	} {
		evs, err := s.Audit(ctx, tt.f)
		var got []string
		for _, ev := range evs {
			got = append(got, ev.RequestID)
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Fatalf("Audit(%+v) = %v, %v; want %v", tt.f, got, err, tt.want)
		}
	}
}

func testSeq(t *testing.T, s approval.Store) {
	ctx := context.Background()
	if seq, err := s.Seq(ctx); err != nil || seq != 0 {
		t.Fatalf("Seq of an empty store = %d, %v", seq, err)
	}
	r := request("r", 1, 100)
	r.Seq = 7
	create(t, s, r)
	if seq, err := s.Seq(ctx); err != nil || seq != 7 {
		t.Fatalf("Seq = %d, %v; want 7", seq, err)
	}
	if err := s.PutRule(ctx, approval.Rule{ID: "x", Agent: "a", Created: at(1), Seq: 9}, approval.AuditEvent{At: at(1), Event: approval.EventRuleAdded, RuleID: "x"}); err != nil {
		t.Fatal(err)
	}
	if seq, err := s.Seq(ctx); err != nil || seq != 9 {
		t.Fatalf("Seq = %d, %v; want the rule's 9", seq, err)
	}
	d := decided(r, approval.Approve, 2, "ann") // Seq 1007
	if ok, err := s.Decide(ctx, d, decisionEvent(d)); err != nil || !ok {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	if seq, err := s.Seq(ctx); err != nil || seq != d.Seq {
		t.Fatalf("Seq = %d, %v; want the decision's %d", seq, err, d.Seq)
	}
}

// testNextSeq: a store shared by several gates (approval.Sequencer) hands out numbers that
// only grow, starting above every number stored; other stores skip it.
func testNextSeq(t *testing.T, s approval.Store) {
	sq, ok := s.(approval.Sequencer)
	if !ok {
		t.Skip("the store does not number changes: its one gate does")
	}
	ctx := context.Background()
	last, err := s.Seq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		n, err := sq.NextSeq(ctx)
		if err != nil || n <= last {
			t.Fatalf("NextSeq = %d, %v; want more than %d", n, err, last)
		}
		last = n
	}
}

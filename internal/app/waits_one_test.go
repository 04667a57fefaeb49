package app

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
)

// TestWaitsOneAgreesWithList: a wait read alone (as the notifier reads the one that changed)
// is the wait the whole list shows, for a plan and a permission request; the list's change
// log names the plan once it was submitted, and once decided it reads as gone.
func TestWaitsOneAgreesWithList(t *testing.T) {
	a := startInstance(t, "")
	ctx := context.Background()
	before := a.Waits.Seq()
	r, _, err := a.Gate.Submit(ctx, approval.Submission{Title: "Deploy", Agent: "claude",
		Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "1. tag\n2. push"}})
	if err != nil {
		t.Fatal(err)
	}
	seq, ids, ok, err := a.Waits.Changed(ctx, before, time.Second)
	if err != nil || !ok || seq <= before || len(ids) != 1 || ids[0] != "plan-"+r.ID {
		t.Fatalf("changed after a submission: %d %v %v %v", seq, ids, ok, err)
	}
	if code, body := a.call(t, "POST", "/api/v1/proxy/permissions", permissionOffer); code != 204 {
		t.Fatalf("offer: %d %s", code, body)
	}
	l, err := a.Waits.List(ctx)
	if err != nil || len(l.Waits) != 2 {
		t.Fatalf("list: %+v %v", l, err)
	}
	for _, w := range l.Waits {
		one, ok, err := a.Waits.One(ctx, w.ID)
		if err != nil || !ok {
			t.Fatalf("one %s: %v %v", w.ID, ok, err)
		}
		if got, want := toNotify(one), toNotify(w); !reflect.DeepEqual(got, want) {
			t.Errorf("%s read alone:\n%+v\nin the list:\n%+v", w.ID, got, want)
		}
	}
	if _, err := a.Gate.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Waits.One(ctx, "plan-"+r.ID); ok || err != nil {
		t.Fatalf("a decided plan read alone: %v %v", ok, err)
	}
	if _, ok, err := a.Waits.One(ctx, "plan-nope"); ok || err != nil {
		t.Fatalf("an unknown plan read alone: %v %v", ok, err)
	}
}

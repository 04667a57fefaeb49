package plans_test

import (
	"context"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

func TestServicePrune(t *testing.T) {
	e := newEnv(t)
	for _, st := range []string{"pending", "in_progress", "completed"} {
		e.apply(upd("s", v1(st+":a")))
	}
	ctx := context.Background()
	if st, err := e.svc.Prune(ctx, e.now); err != nil || st != (plans.PruneStats{}) {
		t.Fatalf("Prune without a Retention = %+v, %v; want nothing done", st, err)
	}
	svc := plans.NewService(e.store, plans.Config{Retention: plans.Retention{MaxRevisions: 2}})
	st, err := svc.Prune(ctx, e.now.Add(time.Hour))
	if err != nil || st.Revisions != 1 || st.Plans != 1 {
		t.Fatalf("Prune = %+v, %v; want one revision of one plan", st, err)
	}
	h, err := svc.History(ctx, "s", "main")
	if err != nil || len(h) != 2 || h[0].Revision != 2 || h[1].Plan.Entries[0].Status != "completed" {
		t.Fatalf("History = %+v, %v", h, err)
	}
}

package planstest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// testPrune: Prune drops, per plan, the revisions older than MaxAge and those beyond its
// MaxRevisions newest, never a plan's newest; what it keeps reads back exactly as committed.
func testPrune(t *testing.T, open func(t *testing.T) plans.Store) {
	const n = 60 // revisions of plan "busy", one a minute from t0
	now := t0.Add(n * time.Minute)
	for _, tt := range []struct {
		name             string
		r                plans.Retention
		wantBusy, wantID int // revisions kept; the oldest kept
	}{
		{"nothing set keeps everything", plans.Retention{}, n, 1},
		{"by count", plans.Retention{MaxRevisions: 10}, 10, n - 9},
		{"by age", plans.Retention{MaxAge: 30*time.Minute - time.Second}, 30, n - 29},
		{"the stricter of both", plans.Retention{MaxAge: time.Hour, MaxRevisions: 5}, 5, n - 4},
		{"everything too old keeps the newest", plans.Retention{MaxAge: time.Nanosecond}, 1, n},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			pr, ok := s.(plans.Pruner)
			if !ok {
				t.Fatalf("%T cannot prune", s)
			}
			busy, idle := pruneFixture("busy", 20), pruneFixture("idle", 3)
			idleRev := reviseAt(t, s, idle, t0)
			var want []plans.Plan
			for i := range n {
				busy.Entries[i%20].Status = []string{plans.StatusInProgress, plans.StatusCompleted}[i/20%2]
				want = append(want, reviseAt(t, s, busy, t0.Add(time.Duration(i+1)*time.Minute)))
			}
			st, err := pr.Prune(ctx, now, tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if st.Revisions != int64(n-tt.wantBusy) {
				t.Fatalf("Prune deleted %d revisions, want %d", st.Revisions, n-tt.wantBusy)
			}
			hist, err := s.History(ctx, "s", "busy")
			if err != nil || len(hist) != tt.wantBusy {
				t.Fatalf("History = %d revisions, %v; want %d", len(hist), err, tt.wantBusy)
			}
			for i, h := range hist {
				if h.Revision != tt.wantID+i || !reflect.DeepEqual(h.Plan, want[tt.wantID-1+i]) {
					t.Fatalf("kept revision %d differs from what was committed", h.Revision)
				}
			}
			if cur, err := s.Plan(ctx, "s", "busy"); err != nil || cur.Revision != n {
				t.Fatalf("Plan = revision %d, %v", cur.Revision, err)
			}
			if h, err := s.History(ctx, "s", "idle"); err != nil || len(h) != 1 || !reflect.DeepEqual(h[0].Plan, idleRev) {
				t.Fatalf("idle History = %+v, %v", h, err)
			}
		})
	}
}

func pruneFixture(id string, entries int) *plans.Plan {
	p := &plans.Plan{SessionID: "s", ID: id, Kind: plans.KindItems, Type: "items", Created: t0, Agent: "Claude Code"}
	for i := range entries {
		p.Entries = append(p.Entries, plans.Entry{Content: fmt.Sprintf("Step %d", i), Priority: "medium", Status: plans.StatusPending})
	}
	return p
}

// reviseAt commits p's next revision at at, as the Service does, and returns a copy of it.
func reviseAt(t *testing.T, s plans.Store, p *plans.Plan, at time.Time) plans.Plan {
	t.Helper()
	p.Revision++
	p.Updated = at
	rev := *p
	rev.Entries = append([]plans.Entry(nil), p.Entries...)
	commit(t, s, &plans.Changes{Sessions: []*plans.Session{{ID: "s", FirstSeen: t0, LastSeen: at}}, Plans: []*plans.Plan{p}, Revisions: []*plans.Plan{&rev}})
	return rev
}

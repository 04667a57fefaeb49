package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

func TestPrune(t *testing.T) {
	// Plan "busy" has 300 revisions, one a minute from rt0; plan "idle" one revision at rt0.
	now := rt0.Add(300 * time.Minute)
	for _, tt := range []struct {
		name             string
		r                plans.Retention
		wantBusy, wantID int // revisions kept; the oldest kept of busy
	}{
		{"nothing set keeps everything", plans.Retention{}, 300, 1},
		{"by count", plans.Retention{MaxRevisions: 10}, 10, 291},
		{"by age", plans.Retention{MaxAge: 30*time.Minute - time.Second}, 30, 271},
		{"the stricter of both", plans.Retention{MaxAge: time.Hour, MaxRevisions: 5}, 5, 296},
		{"everything too old keeps the newest", plans.Retention{MaxAge: time.Nanosecond}, 1, 300},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db := openTemp(t)
			s := db.Plans()
			busy, idle := bigPlan("s", "busy", 50), bigPlan("s", "idle", 3)
			idleRev := revise(t, s, idle, rt0)
			var want []plans.Plan
			for i := range 300 {
				busy.Entries[i%50].Status = []string{plans.StatusInProgress, plans.StatusCompleted}[i/50%2]
				want = append(want, revise(t, s, busy, rt0.Add(time.Duration(i+1)*time.Minute)))
			}
			st, err := s.(plans.Pruner).Prune(ctx, now, tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if st.Revisions != int64(300-tt.wantBusy) {
				t.Fatalf("Prune deleted %d revisions, want %d", st.Revisions, 300-tt.wantBusy)
			}
			hist, err := s.History(ctx, "s", "busy")
			if err != nil || len(hist) != tt.wantBusy {
				t.Fatalf("History = %d revisions, %v; want %d", len(hist), err, tt.wantBusy)
			}
			for i, h := range hist {
				if !reflect.DeepEqual(h.Plan, want[tt.wantID-1+i]) {
					t.Fatalf("kept revision %d differs from what was committed", h.Revision)
				}
			}
			// The current state of every plan stays, and the idle plan keeps its only revision.
			if cur, err := s.Plan(ctx, "s", "busy"); err != nil || cur.Revision != 300 {
				t.Fatalf("Plan = revision %d, %v", cur.Revision, err)
			}
			if h, err := s.History(ctx, "s", "idle"); err != nil || len(h) != 1 || !reflect.DeepEqual(h[0].Plan, idleRev) {
				t.Fatalf("idle History = %+v, %v", h, err)
			}
			// History goes on after a prune, as deltas against what was kept.
			busy.Entries[0].Content = "after the prune"
			next := revise(t, s, busy, now)
			if h, err := s.History(ctx, "s", "busy"); err != nil || !reflect.DeepEqual(h[len(h)-1].Plan, next) {
				t.Fatalf("History after a prune ends %+v, %v", h[len(h)-1].Plan, err)
			}
		})
	}
}

// TestPruneGivesSpaceBack: a new file is created with incremental vacuum, so pruning shrinks
// it; an existing file without it keeps its size until EnableIncrementalVacuum converts it.
func TestPruneGivesSpaceBack(t *testing.T) {
	ctx := context.Background()
	fill := func(t *testing.T, db *DB) {
		p := bigPlan("s", "p", 50)
		for i := range 200 {
			p.Entries[i%50].Content = string(make([]byte, 500)) + json.Number(rune('a'+i%26)).String()
			revise(t, db.Plans(), p, rt0.Add(time.Duration(i)*time.Second))
		}
	}
	prune := func(t *testing.T, db *DB) plans.PruneStats {
		st, err := db.plans.Prune(ctx, rt0.Add(time.Hour), plans.Retention{MaxRevisions: 1})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	t.Run("new file", func(t *testing.T) {
		db := openTemp(t)
		var mode int
		if err := db.w.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
			t.Fatalf("auto_vacuum = %d, %v; want 2 (incremental)", mode, err)
		}
		fill(t, db)
		before := fileBytes(t, db)
		st := prune(t, db)
		if st.Pages == 0 || fileBytes(t, db) >= before {
			t.Fatalf("prune gave back %d pages; %d bytes before, %d after", st.Pages, before, fileBytes(t, db))
		}
	})
	t.Run("existing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "plandash.db")
		rawExec(t, path, v0Schema) // made by an older plandash: auto_vacuum is none
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		fill(t, db)
		if st := prune(t, db); st.Revisions == 0 || st.Pages != 0 {
			t.Fatalf("Prune = %+v; want revisions deleted and no pages given back", st)
		}
		if err := db.EnableIncrementalVacuum(ctx); err != nil {
			t.Fatal(err)
		}
		var mode int
		if err := db.w.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
			t.Fatalf("auto_vacuum = %d, %v after EnableIncrementalVacuum", mode, err)
		}
		if h, err := db.Plans().History(ctx, "old-session", "main"); err != nil || len(h) != 1 {
			t.Fatalf("old plan History = %d, %v; want its newest revision only", len(h), err)
		}
	})
}

// BenchmarkPruneNothingDue is the hourly prune's scan of a history it keeps whole: 1,000 plans
// of 100 revisions each, written as agents write them (a round of one revision for every plan,
// a hundred times), so the rows of one plan are spread through the file.
func BenchmarkPruneNothingDue(b *testing.B) {
	ctx := context.Background()
	db := openTempB(b)
	s := db.Plans()
	const nPlans, nRevs = 1000, 100
	ps := make([]*plans.Plan, nPlans)
	for i := range ps {
		ps[i] = bigPlan(fmt.Sprintf("session-%04d", i), "main", 6)
	}
	for r := range nRevs {
		c := &plans.Changes{}
		for i, p := range ps {
			p.Revision++
			p.Updated = rt0.Add(time.Duration(r) * time.Minute)
			p.Entries = append([]plans.Entry(nil), p.Entries...)
			p.Entries[r%6].Status = []string{plans.StatusInProgress, plans.StatusCompleted}[r%2]
			rev := *p
			c.Plans = append(c.Plans, p)
			c.Revisions = append(c.Revisions, &rev)
			c.Sessions = append(c.Sessions, &plans.Session{ID: p.SessionID, FirstSeen: rt0, LastSeen: p.Updated})
			if i%100 == 99 {
				if err := s.Commit(ctx, c); err != nil {
					b.Fatal(err)
				}
				c = &plans.Changes{}
			}
		}
	}
	now := rt0.Add(nRevs * time.Minute)
	for b.Loop() {
		st, err := s.(plans.Pruner).Prune(ctx, now, plans.Retention{MaxAge: 24 * time.Hour, MaxRevisions: 1000})
		if err != nil || st.Revisions != 0 {
			b.Fatal(st, err)
		}
	}
}

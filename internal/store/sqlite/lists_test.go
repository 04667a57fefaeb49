package sqlite

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
)

// longHistory stores n revisions of one 50-entry plan, each changing one entry, in one
// transaction (as a batch would), and returns them.
func longHistory(tb testing.TB, s plans.Store, n int) []plans.Plan {
	tb.Helper()
	p := bigPlan("s", "p", 50)
	revs := make([]*plans.Plan, n)
	out := make([]plans.Plan, n)
	for i := range n {
		p.Revision++
		p.Updated = rt0.Add(time.Duration(i) * time.Second)
		p.Entries = append([]plans.Entry(nil), p.Entries...)
		p.Entries[i%50].Status = []string{plans.StatusInProgress, plans.StatusCompleted, plans.StatusPending}[i%3]
		rev := *p
		revs[i], out[i] = &rev, rev
	}
	sess := &plans.Session{ID: "s", FirstSeen: rt0, LastSeen: p.Updated}
	if err := s.Commit(context.Background(), &plans.Changes{Sessions: []*plans.Session{sess}, Plans: []*plans.Plan{p}, Revisions: revs}); err != nil {
		tb.Fatal(err)
	}
	for i := range out {
		out[i].Seq = revs[i].Seq
	}
	return out
}

// TestRevisionAtReadsFromItsKeyframe stores 10,000 revisions, then deletes every row before the
// keyframe of revision 10,000 (9,217: revisions are stored whole every 1,024th): a lookup that
// decoded the history from the start would fail, RevisionAt still rebuilds it exactly, and
// so the work of one lookup is bounded by the keyframe interval, not the history's length.
func TestRevisionAtReadsFromItsKeyframe(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	want := longHistory(t, db.Plans(), 10_000)
	keyframe := (10_000-1)/delta.KeyframeEvery*delta.KeyframeEvery + 1
	var format int
	if err := db.r.QueryRowContext(ctx, `SELECT format FROM plan_revisions WHERE plan_id='p' AND revision=?`, keyframe).Scan(&format); err != nil || format != delta.FormatFull {
		t.Fatalf("revision %d is stored in format %d (%v), want whole", keyframe, format, err)
	}
	if _, err := db.w.ExecContext(ctx, `DELETE FROM revision_keys WHERE plan_id='p' AND revision < ?`, keyframe); err != nil {
		t.Fatal(err)
	}
	for _, cached := range []bool{true, false} {
		if !cached { // as after a restart: the newest revision is rebuilt from the rows too
			db.plans.cache = delta.Cache{}
		}
		for _, n := range []int{keyframe, keyframe + 1, 10_000} {
			got, err := db.Plans().RevisionAt(ctx, "s", "p", n)
			if err != nil {
				t.Fatalf("RevisionAt(%d): %v", n, err)
			}
			if !reflect.DeepEqual(got.Plan, want[n-1]) {
				t.Fatalf("revision %d (cache %v) rebuilt as\n%+v\nwant\n%+v", n, cached, got.Plan, want[n-1])
			}
		}
	}
	if _, err := db.Plans().RevisionAt(ctx, "s", "p", keyframe-1); err == nil {
		t.Fatal("a deleted revision was found")
	}
	// The list reads the remaining rows' own columns.
	list, next, newest, err := db.Plans().RevisionsPage(ctx, "s", "p", paging.Request{Limit: 3})
	if err != nil || newest != 10_000 || len(list) != 3 || list[2].Revision != 9_998 || next.IsZero() {
		t.Fatalf("RevisionsPage = %v, %v, %d, %v", list, next, newest, err)
	}
}

// BenchmarkHistoryPage10000 is what the history page reads of a 10,000-revision plan: one
// page of the list and the two newest revisions, against decoding the whole history as before.
func BenchmarkHistoryPage10000(b *testing.B) {
	db := openTempB(b)
	ctx := context.Background()
	longHistory(b, db.Plans(), 10_000)
	b.Run("paged", func(b *testing.B) {
		for b.Loop() {
			if _, _, _, err := db.Plans().RevisionsPage(ctx, "s", "p", paging.Request{Limit: paging.DefaultLimit}); err != nil {
				b.Fatal(err)
			}
			for _, n := range []int{9_999, 10_000} {
				if _, err := db.Plans().RevisionAt(ctx, "s", "p", n); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("whole history", func(b *testing.B) {
		for b.Loop() {
			if h, err := db.Plans().History(ctx, "s", "p"); err != nil || len(h) != 10_000 {
				b.Fatal(len(h), err)
			}
		}
	})
}

func openTempB(b *testing.B) *DB {
	db, err := Open(context.Background(), fmt.Sprintf("%s/plandash.db", b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return db
}

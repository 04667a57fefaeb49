package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
	"github.com/plandash/plandash/internal/store/delta"
)

var rt0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// bigPlan is an items plan of n entries, all pending.
func bigPlan(sid, pid string, n int) *plans.Plan { return planstest.Checklist(sid, pid, n, rt0) }

// revise commits the plan's next revision the way the Service does, and returns a copy of it.
func revise(t *testing.T, s plans.Store, p *plans.Plan, at time.Time) plans.Plan {
	t.Helper()
	p.Revision++
	p.Updated = at
	rev := *p
	rev.Entries = append([]plans.Entry(nil), p.Entries...)
	sess := &plans.Session{ID: p.SessionID, FirstSeen: rt0, LastSeen: at}
	if err := s.Commit(context.Background(), &plans.Changes{Sessions: []*plans.Session{sess}, Plans: []*plans.Plan{p}, Revisions: []*plans.Plan{&rev}}); err != nil {
		t.Fatal(err)
	}
	return rev
}

func fileBytes(t *testing.T, db *DB) int64 {
	t.Helper()
	var pages, size int64
	if err := db.w.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := db.w.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	return pages * size
}

// TestRevisionGrowth is the storage goal: 1,000 updates that each change one entry of a
// 50-entry plan grow the database by no more than that entry plus 200 bytes each.
func TestRevisionGrowth(t *testing.T) {
	db := openTemp(t)
	s := db.Plans()
	p := bigPlan("0b6b2c9e-3f57-4d0a-9d43-1b9d2f0c8e11", "main", 50)
	for i := range 100 { // settle the tables first
		p.Entries[i%50].Status = []string{plans.StatusInProgress, plans.StatusPending}[i%2]
		revise(t, s, p, rt0.Add(time.Duration(i)*time.Second))
	}
	before := fileBytes(t, db)
	const updates = 1000
	for i := range updates {
		e := &p.Entries[(i*7)%50]
		e.Status = map[string]string{plans.StatusPending: plans.StatusInProgress, plans.StatusInProgress: plans.StatusCompleted,
			plans.StatusCompleted: plans.StatusPending}[e.Status]
		revise(t, s, p, rt0.Add(time.Hour+time.Duration(i)*time.Second))
	}
	perUpdate := (fileBytes(t, db) - before) / updates
	changed := int64(len(mustJSON(p.Entries[0])))
	t.Logf("%d bytes per update; the changed entry is %d bytes, the whole plan %d", perUpdate, changed, len(mustJSON(p)))
	if perUpdate > changed+200 {
		t.Fatalf("%d bytes per update, want at most %d (the changed entry) + 200", perUpdate, changed)
	}
}

// TestHistoryRebuildsEveryRevision commits random changes of every kind across several
// keyframes, and reads the history back both from a warm store and after reopening.
func TestHistoryRebuildsEveryRevision(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	p := bigPlan("s", "p", 5)
	var want []plans.Plan
	for i := range 2*delta.KeyframeEvery + 40 {
		if i == delta.KeyframeEvery+7 { // a cold cache in the middle
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = Open(ctx, path); err != nil {
				t.Fatal(err)
			}
		}
		switch rng.IntN(7) {
		case 0:
			p.Entries = append(p.Entries, plans.Entry{Content: fmt.Sprint("new ", i), Priority: "low", Status: "pending"})
		case 1:
			if len(p.Entries) > 0 {
				j := rng.IntN(len(p.Entries))
				p.Entries = append(p.Entries[:j:j], p.Entries[j+1:]...)
			}
		case 2:
			p.Markdown = fmt.Sprint("# rev ", i)
		case 3:
			p.Meta = json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))
		case 4:
			p.Meta, p.Markdown, p.Warnings = nil, "", nil
		case 5:
			p.Entries = nil
		default:
			if len(p.Entries) > 0 {
				p.Entries[rng.IntN(len(p.Entries))].Status = plans.StatusCompleted
			}
			p.Warnings = []string{fmt.Sprint("w", i)}
		}
		want = append(want, revise(t, db.Plans(), p, rt0.Add(time.Duration(i)*time.Second)))
	}
	defer db.Close()
	hist, err := db.Plans().History(ctx, "s", "p")
	if err != nil || len(hist) != len(want) {
		t.Fatalf("History = %d revisions, %v; want %d", len(hist), err, len(want))
	}
	for i, h := range hist {
		if !reflect.DeepEqual(h.Plan, want[i]) || h.Revision != i+1 {
			t.Fatalf("revision %d:\n got %+v\nwant %+v", i+1, h.Plan, want[i])
		}
	}
	var deltas int
	if err := db.r.QueryRow(`SELECT COUNT(*) FROM plan_revisions WHERE format = ?`, delta.FormatDelta).Scan(&deltas); err != nil {
		t.Fatal(err)
	}
	if deltas < len(want)-4 {
		t.Fatalf("%d of %d revisions stored as deltas", deltas, len(want))
	}
}

// TestOldRevisionsStillRead: a file written before deltas keeps its whole revisions, which
// the new ones are deltas against, and the migration dated them for retention.
func TestOldRevisionsStillRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	rawExec(t, path, v0Schema)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var at int64
	if err := db.r.QueryRow(`SELECT at FROM plan_revisions WHERE revision = 2`).Scan(&at); err != nil || at != time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("migrated at = %d, %v", at, err)
	}
	p, err := db.Plans().Plan(ctx, "old-session", "main")
	if err != nil {
		t.Fatal(err)
	}
	p.Entries = append(p.Entries, plans.Entry{Content: "celebrate", Priority: "low", Status: "pending"})
	rev := revise(t, db.Plans(), &p, time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC))
	hist, err := db.Plans().History(ctx, "old-session", "main")
	if err != nil || len(hist) != 3 || !reflect.DeepEqual(hist[2].Plan, rev) || hist[1].Plan.Entries[0].Status != plans.StatusCompleted {
		t.Fatalf("History = %+v, %v", hist, err)
	}
	var format int
	if err := db.r.QueryRow(`SELECT format FROM plan_revisions WHERE revision = 3`).Scan(&format); err != nil || format != delta.FormatDelta {
		t.Fatalf("revision 3 format = %d, %v; want a delta", format, err)
	}
}

// TestOneCommitOfManyRevisions: a batch with many revisions of several plans stores every one,
// each a delta against the one before it in the same batch, and reads them back in order.
func TestOneCommitOfManyRevisions(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t).Plans()
	const perPlan = 47
	c := &plans.Changes{}
	want := map[string][]plans.Plan{}
	for _, pid := range []string{"a", "b", "c"} {
		p := bigPlan("s", pid, 4)
		for i := range perPlan {
			p.Revision++
			p.Updated = rt0.Add(time.Duration(i) * time.Second)
			p.Entries[i%4].Status = []string{plans.StatusInProgress, plans.StatusCompleted}[i/4%2]
			rev := *p
			rev.Entries = append([]plans.Entry(nil), p.Entries...)
			c.Revisions = append(c.Revisions, &rev)
			want[pid] = append(want[pid], rev)
		}
		c.Plans = append(c.Plans, p)
	}
	c.Sessions = []*plans.Session{{ID: "s", FirstSeen: rt0, LastSeen: rt0}}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	for pid, revs := range want {
		hist, err := s.History(ctx, "s", pid)
		if err != nil || len(hist) != perPlan {
			t.Fatalf("History(%s) = %d revisions, %v; want %d", pid, len(hist), err, perPlan)
		}
		for i, h := range hist {
			revs[i].Seq = h.Plan.Seq
			if !reflect.DeepEqual(h.Plan, revs[i]) {
				t.Fatalf("%s revision %d:\n got %+v\nwant %+v", pid, i+1, h.Plan, revs[i])
			}
		}
	}
}

// TestRevisionBodiesAreAppended: the bodies of revisions lie in the order they were written,
// whatever plan each is of, so a commit that touches many plans writes their bodies to the last
// pages instead of one page inside each plan's history; every revision still reads back.
func TestRevisionBodiesAreAppended(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	s := db.Plans()
	ps := []*plans.Plan{bigPlan("s1", "a", 3), bigPlan("s2", "b", 3), bigPlan("s1", "c", 3)}
	var wrote []string
	for i := range 4 {
		for _, p := range ps {
			p.Entries[i%3].Status = []string{plans.StatusInProgress, plans.StatusCompleted}[i%2]
			revise(t, s, p, rt0.Add(time.Duration(len(wrote))*time.Second))
			wrote = append(wrote, fmt.Sprintf("%s/%d", p.ID, p.Revision))
		}
	}
	rows, err := db.r.QueryContext(ctx, `SELECT k.plan_id || '/' || k.revision FROM revision_keys k JOIN revision_bodies b ON b.id = k.body_id ORDER BY b.rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var stored []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, k)
	}
	if !slices.Equal(stored, wrote) {
		t.Fatalf("bodies in the file's order: %v\nwant the order they were written: %v", stored, wrote)
	}
	for _, p := range ps {
		if h, err := s.History(ctx, p.SessionID, p.ID); err != nil || len(h) != 4 || !reflect.DeepEqual(h[3].Plan.Entries, p.Entries) {
			t.Fatalf("History(%s) = %d revisions, %v", p.ID, len(h), err)
		}
	}
}

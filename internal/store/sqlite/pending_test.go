package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
)

// storedFormat is how revision of a plan is stored, in plan_revisions or in its row's slot;
// -1 when it is in neither.
func storedFormat(t *testing.T, db *DB, sessionID, planID string, revision int) int {
	t.Helper()
	rows, err := db.r.Query(`SELECT 0, revision, format, at, body FROM plan_revisions WHERE session_id = ?1 AND plan_id = ?2`+
		pendingAfter, sessionID, planID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	format := -1
	if err := storedRows(rows, func(r stored) error {
		if r.revision == revision {
			format = r.format
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return format
}

// rowCounts is how many revisions of a plan are in plan_revisions, and how many in its slot.
func rowCounts(t *testing.T, db *DB, sessionID, planID string) (rows, pending int) {
	t.Helper()
	if err := db.r.QueryRow(`SELECT count(*) FROM plan_revisions WHERE session_id = ? AND plan_id = ?`, sessionID, planID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	var slot []byte
	if err := db.r.QueryRow(`SELECT pending FROM plans WHERE session_id = ? AND plan_id = ?`, sessionID, planID).Scan(&slot); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	list, err := decodePending(slot)
	if err != nil {
		t.Fatal(err)
	}
	return rows, len(list)
}

func TestPendingListRoundTrip(t *testing.T) {
	var list []byte
	var want []stored
	for i := range 5 {
		r := stored{revision: 1000 + i, format: i % 2, at: -int64(i) * 1e12, body: []byte(`{"s":` + strconv.Itoa(i) + `}`)}
		list = appendPending(list, r)
		want = append(want, r)
	}
	padded := slot(list, nil)
	got, err := decodePending(padded)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("decodePending = %+v, %v; want %+v", got, err, want)
	}
	if n, err := pendingLen(padded); n != len(list) || err != nil {
		t.Fatalf("pendingLen = %d, %v; want %d", n, err, len(list))
	}
	if again, err := newList(padded); err != nil || !bytes.Equal(again, list) || cap(again) < slotSize {
		t.Fatalf("newList = %q (cap %d), %v", again, cap(again), err)
	}
	for _, bad := range [][]byte{{0x80}, {1, 0, 0, 9, '{'}, {1, 0, 0, 0x80}} {
		if _, err := decodePending(bad); err == nil {
			t.Errorf("decodePending(%q) read a broken list", bad)
		}
	}
	if slot(make([]byte, slotSize+1), nil) != nil || slot(nil, make([]byte, maxRow)) != nil {
		t.Error("a slot was made for a list that does not fit, or a row with no room")
	}
}

// TestPendingRevisionsRead: a plan's newest revisions wait in its row, then go to
// plan_revisions together; wherever they are, every read of the history finds each once,
// in order, and after a reopen (the process gone, the row on disk) too.
func TestPendingRevisionsRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	p := bigPlan("s", "p", 5)
	var want []plans.Plan
	sawPending, sawFlush := false, false
	check := func(db *DB) {
		t.Helper()
		s := db.Plans()
		hist, err := s.History(ctx, "s", "p")
		if err != nil || len(hist) != len(want) {
			t.Fatalf("History = %d revisions, %v; want %d", len(hist), err, len(want))
		}
		for i, h := range hist {
			if !reflect.DeepEqual(h.Plan, want[i]) {
				t.Fatalf("revision %d:\n got %+v\nwant %+v", i+1, h.Plan, want[i])
			}
		}
		lister := s.(plans.Lister)
		var listed []int
		var next paging.Cursor
		for {
			page, after, newest, err := lister.RevisionsPage(ctx, "s", "p", paging.Request{Limit: 3, After: next})
			if err != nil || newest != len(want) {
				t.Fatalf("RevisionsPage: newest %d, %v; want %d", newest, err, len(want))
			}
			for _, ri := range page {
				listed = append(listed, ri.Revision)
				if !ri.At.Equal(want[ri.Revision-1].Updated) {
					t.Fatalf("revision %d listed at %v, want %v", ri.Revision, ri.At, want[ri.Revision-1].Updated)
				}
			}
			if next = after; next.IsZero() {
				break
			}
		}
		wantListed := make([]int, len(want))
		for i := range wantListed {
			wantListed[i] = len(want) - i
		}
		if !slices.Equal(listed, wantListed) {
			t.Fatalf("RevisionsPage listed %v, want %v", listed, wantListed)
		}
		for _, n := range []int{1, max(1, len(want)/2), len(want)} {
			db.plans.cache = delta.Cache{} // as after a restart
			got, err := lister.RevisionAt(ctx, "s", "p", n)
			if err != nil || !reflect.DeepEqual(got.Plan, want[n-1]) {
				t.Fatalf("RevisionAt(%d) = %+v, %v", n, got.Plan, err)
			}
		}
	}
	for i := range 40 {
		p.Entries[i%5].Content = fmt.Sprintf("step %d", i)
		want = append(want, revise(t, db.Plans(), p, rt0.Add(time.Duration(i)*time.Second)))
		rows, pending := rowCounts(t, db, "s", "p")
		if rows+pending != len(want) {
			t.Fatalf("after revision %d: %d rows and %d pending", len(want), rows, pending)
		}
		sawPending = sawPending || pending > 0
		sawFlush = sawFlush || rows > 0
		check(db)
	}
	if !sawPending || !sawFlush {
		t.Fatalf("revisions waited in the row: %v; went to plan_revisions: %v", sawPending, sawFlush)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check(db)
	// The next revision is a delta against the newest, read back from the file.
	p.Entries[0].Status = plans.StatusCompleted
	want = append(want, revise(t, db.Plans(), p, rt0.Add(time.Hour)))
	check(db)
	if f := storedFormat(t, db, "s", "p", len(want)); f != delta.FormatDelta {
		t.Fatalf("the revision after a reopen is stored in format %d, want a delta", f)
	}
}

// TestPruneTakesPendingRevisions: Prune counts and keeps revisions wherever they wait, and a
// batch after it goes on from what Prune left, not from what it remembered.
func TestPruneTakesPendingRevisions(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	s := db.Plans()
	p := bigPlan("s", "p", 5)
	var want []plans.Plan
	for i := range 13 {
		p.Entries[i%5].Status = plans.StatusInProgress
		want = append(want, revise(t, s, p, rt0.Add(time.Duration(i)*time.Minute)))
	}
	if _, pending := rowCounts(t, db, "s", "p"); pending == 0 {
		t.Fatal("no revision waits in the row: the test tests nothing")
	}
	st, err := s.(plans.Pruner).Prune(ctx, rt0.Add(time.Hour), plans.Retention{MaxRevisions: 3})
	if err != nil || st.Revisions != 10 {
		t.Fatalf("Prune = %+v, %v; want 10 revisions deleted", st, err)
	}
	p.Entries[0].Content = "after the prune"
	want = append(want[10:], revise(t, s, p, rt0.Add(2*time.Hour)))
	hist, err := s.History(ctx, "s", "p")
	if err != nil || len(hist) != len(want) {
		t.Fatalf("History = %d revisions, %v; want %d", len(hist), err, len(want))
	}
	for i, h := range hist {
		if !reflect.DeepEqual(h.Plan, want[i]) {
			t.Fatalf("revision %d:\n got %+v\nwant %+v", h.Revision, h.Plan, want[i])
		}
	}
}

// TestPlansInOrderKeepsPlans: a file from before plans had slots keeps every plan and its
// history through the step that remakes the table, and its plans take slots from then on.
func TestPlansInOrderKeepsPlans(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	steps := migrations()
	before := slices.Index(steps, pendingSchema)
	rawExec(t, path, strings.Join(steps[:before], ";\n")+";\nPRAGMA user_version = "+strconv.Itoa(before))
	p := bigPlan("s", "p", 3)
	p.Revision, p.Updated = 1, rt0
	body := delta.EncodePlan(p)
	rawExec(t, path, `INSERT INTO sessions(id, body, last_seen, seq, first_seen) VALUES('s', '{"id":"s"}', 1, 1, 1);
		INSERT INTO plans(session_id, plan_id, removed, updated, body, entry_count, open_count) VALUES('s', 'p', 0, 1, x'`+hex.EncodeToString(body)+`', 3, 3);
		INSERT INTO plan_revisions(session_id, plan_id, revision, body, format, at) VALUES('s', 'p', 1, x'`+hex.EncodeToString(body)+`', 0, 1)`)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var withoutRowid int
	if err := db.r.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'plans' AND sql LIKE '%WITHOUT ROWID%'`).Scan(&withoutRowid); err != nil || withoutRowid != 0 {
		t.Fatalf("plans is still without rowid (%v)", err)
	}
	if got, err := db.Plans().Plan(ctx, "s", "p"); err != nil || !reflect.DeepEqual(got, *p) {
		t.Fatalf("Plan = %+v, %v; want %+v", got, err, *p)
	}
	first := *p
	first.Entries = slices.Clone(p.Entries)
	p.Entries[0].Status = plans.StatusCompleted
	second := revise(t, db.Plans(), p, rt0.Add(time.Minute))
	hist, err := db.Plans().History(ctx, "s", "p")
	if err != nil || len(hist) != 2 || !reflect.DeepEqual(hist[0].Plan, first) || !reflect.DeepEqual(hist[1].Plan, second) {
		t.Fatalf("History = %+v, %v", hist, err)
	}
	if _, pending := rowCounts(t, db, "s", "p"); pending != 1 {
		t.Fatalf("%d revisions wait in the row, want 1", pending)
	}
}

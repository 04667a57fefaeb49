package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// fillOne stores a session with n plans of five entries.
func fillOne(tb testing.TB, db *DB, n int) {
	tb.Helper()
	now := time.Unix(1_800_000_000, 0)
	c := &plans.Changes{}
	c.Sessions = append(c.Sessions, &plans.Session{ID: "s", FirstSeen: now, LastSeen: now})
	for i := range n {
		p := plans.Plan{SessionID: "s", ID: fmt.Sprintf("p%d", i), Kind: plans.KindItems, Revision: 1, Updated: now.Add(time.Duration(i) * time.Second)}
		for j := range 5 {
			p.Entries = append(p.Entries, plans.Entry{Content: fmt.Sprintf("step %d", j), Status: "pending", Priority: "medium"})
		}
		c.Plans = append(c.Plans, &p)
	}
	if err := db.Plans().Commit(context.Background(), c); err != nil {
		tb.Fatal(err)
	}
}

// TestReadStatementsKeptAndBounded: a read prepares its statement once and reuses it, and the
// cache stops growing at its bound while the reads past it still answer.
func TestReadStatementsKeptAndBounded(t *testing.T) {
	db := openTemp(t)
	fillOne(t, db, 3)
	ctx := context.Background()
	f := plans.SessionFilter{IDs: []string{"s"}, PlansPer: 2}
	for range 3 {
		got, _, err := db.Plans().ListSessions(ctx, f, plans.SessionCursor{}, 1)
		if err != nil || len(got) != 1 || len(got[0].Plans) != 2 || got[0].Tally.Plans != 3 {
			t.Fatalf("ListSessions = %+v, %v", got, err)
		}
	}
	kept := len(db.r.stmts)
	if kept == 0 {
		t.Fatal("no read statement was kept")
	}
	for i := range maxReadStmts + 10 { // distinct texts: one more "?" in the IN list each time
		ids := make([]string, i+1)
		for j := range ids {
			ids[j] = fmt.Sprint("other-", j)
		}
		ids[i] = "s"
		got, _, err := db.Plans().ListSessions(ctx, plans.SessionFilter{IDs: ids}, plans.SessionCursor{}, 1)
		if err != nil || len(got) != 1 {
			t.Fatalf("ListSessions with %d ids = %+v, %v", len(ids), got, err)
		}
	}
	if n := len(db.r.stmts); n != maxReadStmts {
		t.Errorf("%d statements kept, want the bound %d", n, maxReadStmts)
	}
}

// BenchmarkListOneSession is the read behind a live update of the overview: one session's row,
// its newest six plans and the tally of the rest.
func BenchmarkListOneSession(b *testing.B) {
	db := openTempB(b)
	fillOne(b, db, 20)
	ctx := context.Background()
	f := plans.SessionFilter{IDs: []string{"s"}, PlansPer: 6}
	b.ReportAllocs()
	for b.Loop() {
		if got, _, err := db.Plans().ListSessions(ctx, f, plans.SessionCursor{}, 1); err != nil || len(got) != 1 {
			b.Fatal(got, err)
		}
	}
}

// TestNoBoundLimit: no query of the package binds its LIMIT. SQLite re-parses a kept statement
// whenever a bound LIMIT is bound again (limitTo), which silently undoes readDB's cache; this
// is the one place that can notice a new "LIMIT ?".
func TestNoBoundLimit(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(strings.ToUpper(line), "LIMIT ?") {
				t.Errorf("%s:%d binds a LIMIT; write it with limitTo: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

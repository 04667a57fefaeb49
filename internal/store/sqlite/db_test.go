package sqlite

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
	"github.com/plandash/plandash/internal/sharedplans"
)

//go:embed testdata/v0.sql
var v0Schema string

// rawExec runs SQL on path through a connection of its own, as another program would.
func rawExec(t *testing.T, path, q string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// fileAtStep makes path a database as the schema's first n steps leave it, as a plandash from
// before step n+1 wrote it.
func fileAtStep(t *testing.T, path string, n int) {
	t.Helper()
	rawExec(t, path, strings.Join(migrations()[:n], ";\n")+";\nPRAGMA user_version = "+strconv.Itoa(n))
}

func userVersion(t *testing.T, q querier) int {
	t.Helper()
	var v int
	if err := q.QueryRowContext(context.Background(), `PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOneFileHoldsEveryStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "plandash.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	sess := &plans.Session{ID: "s", FirstSeen: time.Unix(1, 0).UTC(), LastSeen: time.Unix(2, 0).UTC()}
	if err := db.Plans().Commit(ctx, &plans.Changes{Sessions: []*plans.Session{sess}}); err != nil {
		t.Fatal(err)
	}
	req := approval.Request{ID: "r", Status: approval.Pending, Title: "t", Options: []approval.Action{approval.Approve},
		Default: approval.Reject, Created: time.Unix(1, 0).UTC(), Deadline: time.Unix(100, 0).UTC(), Seq: 1}
	if _, _, err := db.Approvals().Create(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.SharedHistory().Record(ctx, sharedplans.HistoryEntry{Name: "p", Revision: 1, Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Nothing but the database and the notifications' outbox file (and SQLite's own WAL files)
	// was written beside it.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "plandash.db") && !strings.HasPrefix(e.Name(), OutboxFile) {
			t.Fatalf("unexpected file %q beside the database", e.Name())
		}
	}

	// Reopened, the file has all three.
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, err := db.Plans().Session(ctx, "s"); err != nil || got.Seq != sess.Seq {
		t.Fatalf("Session = %+v, %v", got, err)
	}
	if db.Plans().Seq() != sess.Seq {
		t.Fatalf("Seq after reopening = %d, want %d", db.Plans().Seq(), sess.Seq)
	}
	if _, err := db.Approvals().Get(ctx, "r"); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if _, ok, err := db.SharedHistory().Latest(ctx, "p"); err != nil || !ok {
		t.Fatalf("Latest = %v, %v", ok, err)
	}
}

func TestFileIsPrivate(t *testing.T) {
	for _, tt := range []struct {
		name string
		dir  func(t *testing.T) string // the database's directory, which may not exist yet
	}{
		{"in an existing 0755 directory", func(t *testing.T) string {
			dir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o755); err != nil { // whatever the umask
				t.Fatal(err)
			}
			return dir
		}},
		{"in a directory it creates", func(t *testing.T) string { return filepath.Join(t.TempDir(), "new", "data") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir(t)
			_, statErr := os.Stat(dir)
			created := errors.Is(statErr, os.ErrNotExist)
			db, err := Open(context.Background(), filepath.Join(dir, "plandash.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// A write makes SQLite create its WAL files too.
			if _, _, err := db.SharedHistory().Record(context.Background(), sharedplans.HistoryEntry{Name: "p", Revision: 1}); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"plandash.db", "plandash.db-wal", "plandash.db-shm"} {
				fi, err := os.Stat(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if mode := fi.Mode().Perm(); mode != 0o600 {
					t.Errorf("%s has mode %o, want 600", name, mode)
				}
			}
			if created {
				fi, err := os.Stat(dir)
				if err != nil {
					t.Fatal(err)
				}
				if mode := fi.Mode().Perm(); mode != 0o700 {
					t.Errorf("created directory has mode %o, want 700", mode)
				}
			}
		})
	}
}

// TestEveryConnectionIsDurable holds the writer and every reader at once, so each pragma is
// read on a distinct connection.
func TestEveryConnectionIsDurable(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	type conn struct {
		name string
		c    *sql.Conn
	}
	var conns []conn
	w, err := db.w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conns = append(conns, conn{"writer", w})
	for i := range readers {
		c, err := db.r.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn{"reader " + strconv.Itoa(i+1), c})
	}
	defer func() {
		for _, c := range conns {
			c.c.Close()
		}
	}()
	for _, c := range conns {
		for _, tt := range []struct {
			pragma, want string
		}{
			{"synchronous", "2"}, // FULL
			{"journal_mode", "wal"},
			{"foreign_keys", "1"},
			{"busy_timeout", "10000"},
		} {
			var got string
			if err := c.c.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s: PRAGMA %s = %s, want %s", c.name, tt.pragma, got, tt.want)
			}
		}
		_, err := c.c.ExecContext(ctx, `INSERT INTO shared_plan_history(name, revision, seen_at) VALUES('x', 1, 0)`)
		if reader := c.name != "writer"; reader && err == nil {
			t.Errorf("%s accepted a write", c.name)
		} else if !reader && err != nil {
			t.Errorf("the writer refused a write: %v", err)
		}
	}
}

func TestOpensOldSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	rawExec(t, path, v0Schema)
	rawExec(t, path, `INSERT INTO tool_calls(session_id, id, created, body) VALUES
		('old-session', 't1', 1, '{"sessionId":"old-session","id":"t1","title":"Read","status":"completed"}'),
		('old-session', 't2', 2, '{"sessionId":"old-session","id":"t2","title":"Edit","status":"pending"}')`)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v := userVersion(t, db.r); v != len(migrations()) {
		t.Fatalf("user_version = %d, want %d", v, len(migrations()))
	}

	p := db.Plans()
	if p.Seq() != 7 {
		t.Fatalf("Seq = %d, want the old file's 7", p.Seq())
	}
	var seqIndexes int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'sessions_seq'`).Scan(&seqIndexes); err != nil || seqIndexes != 0 {
		t.Fatalf("the sessions' seq index is still there (%d, %v)", seqIndexes, err)
	}
	if ids, cur, err := p.ChangedSince(ctx, 6); err != nil || !slices.Equal(ids, []string{"old-session"}) || cur != 7 {
		t.Fatalf("ChangedSince(6) = %v, %d, %v; want the old session without its index", ids, cur, err)
	}
	plan, err := p.Plan(ctx, "old-session", "main")
	if err != nil || plan.Revision != 2 || plan.Entries[0].Status != plans.StatusCompleted {
		t.Fatalf("Plan = %+v, %v", plan, err)
	}
	var kind string
	if err := db.r.QueryRowContext(ctx, `SELECT type FROM sqlite_master WHERE name = 'plan_revisions'`).Scan(&kind); err != nil || kind != "view" {
		t.Fatalf("plan_revisions is a %q (%v), want the view over the keys and the appended bodies", kind, err)
	}
	if hist, err := p.History(ctx, "old-session", "main"); err != nil || len(hist) != 2 {
		t.Fatalf("History = %d revisions, %v", len(hist), err)
	}
	if a, err := p.LastActivity(ctx, "old-session"); err != nil || a.Text != "on it" || a.ID != 1 {
		t.Fatalf("LastActivity = %+v, %v", a, err)
	}
	sessions, err := p.Sessions(ctx, 10)
	if err != nil || len(sessions) != 1 || sessions[0].Agent != "claude" {
		t.Fatalf("Sessions = %+v, %v", sessions, err)
	}
	// The start time the list orders by is taken from the old body.
	var firstSeen int64
	if err := db.r.QueryRowContext(ctx, `SELECT first_seen FROM sessions WHERE id='old-session'`).Scan(&firstSeen); err != nil || firstSeen != 1767323045000000000 {
		t.Fatalf("first_seen = %d, %v; want the body's firstSeen", firstSeen, err)
	}
	if list, _, err := p.ListSessions(ctx, plans.SessionFilter{}, plans.SessionCursor{}, 10); err != nil || len(list) != 1 || list[0].Session.ID != "old-session" {
		t.Fatalf("ListSessions = %+v, %v", list, err)
	} else if want := planstest.TallyOf(list[0].Plans); want.Entries == 0 || list[0].Tally != want {
		t.Fatalf("the old plans' tally = %+v; want %+v, counted from the bodies", list[0].Tally, want)
	}
	// Tool calls stored before sessions counted them are counted once; new ones add to that.
	if _, total, err := p.RecentToolCalls(ctx, "old-session", 10); err != nil || total != 2 {
		t.Fatalf("RecentToolCalls total = %d, %v; want the old file's 2", total, err)
	}

	a := db.Approvals()
	if r, err := a.Get(ctx, "old-request"); err != nil || r.Status != approval.Pending || len(r.Plan.Entries) == 0 || r.Plan.Entries[0].Content != "deploy" {
		t.Fatalf("Get = %+v, %v", r, err)
	}
	if sums, err := a.PendingSummaries(ctx); err != nil || len(sums) != 1 || sums[0].PlanSize != 1 || len(sums[0].Options) != 3 {
		t.Fatalf("PendingSummaries = %+v, %v", sums, err)
	}
	if rules, err := a.Rules(ctx, false); err != nil || len(rules) != 1 || rules[0].ID != "old-rule" {
		t.Fatalf("Rules = %+v, %v", rules, err)
	}
	if ev, err := a.Audit(ctx, approval.AuditFilter{Agent: "claude", Limit: 10}); err != nil || len(ev) != 1 || ev[0].ID != 1 {
		t.Fatalf("Audit = %+v, %v", ev, err)
	}
	if seq, err := a.Seq(ctx); err != nil || seq != 4 {
		t.Fatalf("approval Seq = %d, %v; want 4", seq, err)
	}

	h := db.SharedHistory()
	e, ok, err := h.Latest(ctx, "release")
	if err != nil || !ok || e.Content != "- [ ] tag" || !e.SeenAt.Equal(time.UnixMilli(1767323045000)) {
		t.Fatalf("Latest = %+v, %v, %v", e, ok, err)
	}

	// And the old file takes new writes after the upgrade.
	sess, err := p.Session(ctx, "old-session")
	if err != nil {
		t.Fatal(err)
	}
	sess.LastSeen = sess.LastSeen.Add(time.Minute)
	call := &plans.ToolCall{SessionID: "old-session", ID: "t3", Title: "Test", Status: "pending"}
	if err := p.Commit(ctx, &plans.Changes{Sessions: []*plans.Session{&sess}, ToolCalls: []*plans.ToolCall{call}}); err != nil || sess.Seq != 8 {
		t.Fatalf("Commit = %v, Seq %d; want 8", err, sess.Seq)
	}
	if _, total, err := p.RecentToolCalls(ctx, "old-session", 10); err != nil || total != 3 {
		t.Fatalf("RecentToolCalls total after a new call = %d, %v; want 3", total, err)
	}
	// A call the upgrade moved is updated where it is: not counted again, its start kept.
	moved := &plans.ToolCall{SessionID: "old-session", ID: "t1", Title: "Read", Status: "failed", Created: time.Unix(0, 1)}
	if err := p.Commit(ctx, &plans.Changes{ToolCalls: []*plans.ToolCall{moved}}); err != nil {
		t.Fatal(err)
	}
	// t3, made with no start time, sorts before the calls made at 1 and 2 ns.
	if calls, total, err := p.RecentToolCalls(ctx, "old-session", 10); err != nil || total != 3 || len(calls) != 3 ||
		calls[1].ID != "t1" || calls[1].Status != "failed" || calls[2].ID != "t2" {
		t.Fatalf("RecentToolCalls after updating a moved call = %+v, %d, %v", calls, total, err)
	}
	if _, added, err := h.Record(ctx, sharedplans.HistoryEntry{Name: "release", Revision: 2, Title: "Release", Author: "ann", Content: "- [x] tag"}); err != nil || !added {
		t.Fatalf("Record = %v, %v", added, err)
	}
}

// TestMovesRequestOwnersIntoBodies: a database from before approval requests kept who
// submitted them keeps each owner, now in the request itself.
func TestMovesRequestOwnersIntoBodies(t *testing.T) {
	ctx := context.Background()
	// The requests are made by this plandash, then copied into a file from before the step.
	made := filepath.Join(t.TempDir(), "made.db")
	db, err := Open(ctx, made)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"owned", "unowned"} {
		r := approval.Request{ID: id, Status: approval.Pending, Title: "Plan " + id, Options: []approval.Action{approval.Approve},
			Default: approval.Reject, Created: time.Unix(1, 0).UTC(), Deadline: time.Unix(60, 0).UTC(), Fingerprint: "fp"}
		if _, _, err := db.Approvals().Create(ctx, r, nil); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	path := filepath.Join(t.TempDir(), "plandash.db")
	fileAtStep(t, path, slices.Index(migrations(), submitterInBody))
	rawExec(t, path, `ATTACH 'file:`+made+`' AS made;
		INSERT INTO approval_requests SELECT * FROM made.approval_requests;
		DETACH made;
		INSERT INTO token_requests VALUES ('owned', 'laptop-1'), ('gone', 'laptop-2');`)

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, want := range map[string]string{"owned": "token:laptop-1", "unowned": ""} {
		r, err := db.Approvals().Get(ctx, id)
		if err != nil || r.SubmittedBy != want || r.Title != "Plan "+id || len(r.Options) != 1 {
			t.Fatalf("Get(%q) = %+v, %v; want it whole, submitted by %q", id, r, err, want)
		}
	}
	var n int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'token_requests'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("token_requests is still there (%d, %v)", n, err)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plandash.db")
	newer := len(migrations()) + 1
	rawExec(t, path, `CREATE TABLE from_the_future(x); PRAGMA user_version = `+strconv.Itoa(newer))
	db, err := Open(context.Background(), path)
	var se *SchemaError
	if !errors.As(err, &se) || se.Found != newer || se.Known != len(migrations()) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("Open = %v; want a SchemaError found %d, known %d", err, newer, len(migrations()))
	}
	if !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not say the file and that it is newer", err)
	}
	// The file is left as it was.
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if v := userVersion(t, raw); v != newer {
		t.Fatalf("user_version = %d after a refused open, want %d", v, newer)
	}
	var n int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'sessions'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a refused open created tables (%d, %v)", n, err)
	}
}

// TestTwoHandlesOnOneFile is two processes on one data directory: both open (the second finds
// the schema done) and each sees the other's writes.
func TestTwoHandlesOnOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	var dbs [2]*DB
	for i := range dbs {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	if _, _, err := dbs[0].SharedHistory().Record(ctx, sharedplans.HistoryEntry{Name: "p", Revision: 1, Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, added, err := dbs[1].SharedHistory().Record(ctx, sharedplans.HistoryEntry{Name: "p", Revision: 1, Content: "x"}); err != nil || added {
		t.Fatalf("the second handle recorded a state the first had (%v, %v)", added, err)
	}
	if v := userVersion(t, dbs[1].r); v != len(migrations()) {
		t.Fatalf("user_version = %d", v)
	}
}

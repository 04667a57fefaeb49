package postgres

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/notify/notifysql"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

// connect is a connection of the test's own to url, closed when the test ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// schemaVersion reads the recorded version straight from the database.
func schemaVersion(t *testing.T, url string) int {
	t.Helper()
	var v int
	if err := connect(t, url).QueryRow(context.Background(), `SELECT version FROM plandash_schema`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	known := len(migrations())
	for _, tt := range []struct {
		name string
		run  func(t *testing.T, url string)
	}{
		{"an empty database gets every step", func(t *testing.T, url string) {
			db := open(t, url)
			if v := schemaVersion(t, url); v != known {
				t.Fatalf("version = %d, want %d", v, known)
			}
			if seq := db.Plans().Seq(); seq != 0 {
				t.Fatalf("a new database has Seq %d", seq)
			}
		}},
		{"the sessions' seq index is dropped and ChangedSince still answers", func(t *testing.T, url string) {
			db := open(t, url)
			sess := &plans.Session{ID: "s"}
			if err := db.Plans().Commit(ctx, &plans.Changes{Sessions: []*plans.Session{sess}}); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := connect(t, url).QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE indexname = 'sessions_seq' AND schemaname = current_schema()`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("the sessions' seq index is still there (%d, %v)", n, err)
			}
			if ids, _, err := db.Plans().ChangedSince(ctx, 0); err != nil || !slices.Equal(ids, []string{"s"}) {
				t.Fatalf("ChangedSince(0) = %v, %v", ids, err)
			}
		}},
		{"a second Open changes nothing and keeps the data", func(t *testing.T, url string) {
			first := open(t, url)
			sess := &plans.Session{ID: "kept", Agent: "a"}
			if err := first.Plans().Commit(ctx, &plans.Changes{Sessions: []*plans.Session{sess}}); err != nil {
				t.Fatal(err)
			}
			first.Close()
			again := open(t, url)
			if v := schemaVersion(t, url); v != known {
				t.Fatalf("version = %d, want %d", v, known)
			}
			if got, err := again.Plans().Session(ctx, "kept"); err != nil || got.ID != "kept" {
				t.Fatalf("Session after reopening = %+v, %v", got, err)
			}
			if again.Plans().Seq() != sess.Seq {
				t.Fatalf("Seq after reopening = %d, want %d", again.Plans().Seq(), sess.Seq)
			}
		}},
		{"plans and tool calls stored before the counts are counted once", func(t *testing.T, url string) {
			first := open(t, url)
			p := &plans.Plan{SessionID: "s", ID: "p", Kind: plans.KindItems, Type: "items", Revision: 1,
				Entries: []plans.Entry{{Content: "a", Status: plans.StatusCompleted}, {Content: "b", Status: plans.StatusInProgress}, {Content: "c", Status: plans.StatusPending}}}
			calls := []*plans.ToolCall{{SessionID: "s", ID: "t1"}, {SessionID: "s", ID: "t2"}}
			if err := first.Plans().Commit(ctx, &plans.Changes{Sessions: []*plans.Session{{ID: "s"}}, Plans: []*plans.Plan{p}, ToolCalls: calls}); err != nil {
				t.Fatal(err)
			}
			first.Close()
			// Back to the schema before the two steps that count, as a database of that
			// version has it (with the table the step after them drops).
			conn := connect(t, url)
			if _, err := conn.Exec(ctx, `DROP TRIGGER tool_calls_counted ON tool_calls; DROP FUNCTION plandash_count_tool_call();
				ALTER TABLE sessions DROP COLUMN tool_calls; ALTER TABLE plans DROP COLUMN entry_count, DROP COLUMN open_count;
				CREATE TABLE token_requests (request_id text COLLATE "C" PRIMARY KEY, token text NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			// Named by step, not counted from the end, so steps added later are run again too.
			if _, err := conn.Exec(ctx, `UPDATE plandash_schema SET version = $1`, slices.Index(migrations(), planTally)); err != nil {
				t.Fatal(err)
			}
			again := open(t, url).Plans()
			list, _, err := again.ListSessions(ctx, plans.SessionFilter{}, plans.SessionCursor{}, 10)
			if err != nil || len(list) != 1 || list[0].Tally != (plans.Tally{Plans: 1, Entries: 3, Open: 2}) {
				t.Fatalf("ListSessions = %+v, %v; want the plan's entries counted", list, err)
			}
			if err := again.Commit(ctx, &plans.Changes{ToolCalls: []*plans.ToolCall{{SessionID: "s", ID: "t2", Title: "again"}, {SessionID: "s", ID: "t3"}}}); err != nil {
				t.Fatal(err)
			}
			if _, total, err := again.RecentToolCalls(ctx, "s", 10); err != nil || total != 3 {
				t.Fatalf("RecentToolCalls total = %d, %v; want 2 stored before, 1 new (an update is not new)", total, err)
			}
		}},
		{"revisions stored whole before deltas stay readable, and the next is a delta on them", func(t *testing.T, url string) {
			first := open(t, url)
			var revs []plans.Plan
			for r := 1; r <= 3; r++ {
				p := plans.Plan{SessionID: "s", ID: "p", Kind: plans.KindItems, Type: "items", Revision: r, Created: time.Unix(1, 0).UTC(),
					Updated: time.Unix(int64(10*r), 0).UTC(), Entries: []plans.Entry{{Content: "a", Priority: "high", Status: plans.StatusPending}}}
				if r == 3 {
					p.Entries[0].Status = plans.StatusCompleted
				}
				revs = append(revs, p)
			}
			if err := first.Plans().Commit(ctx, &plans.Changes{Sessions: []*plans.Session{{ID: "s"}}, Plans: []*plans.Plan{&revs[2]}}); err != nil {
				t.Fatal(err)
			}
			first.Close()
			// As a database before the step has them: whole plans, no format or time column.
			conn := connect(t, url)
			if _, err := conn.Exec(ctx, `ALTER TABLE plan_revisions DROP COLUMN format, DROP COLUMN at`); err != nil {
				t.Fatal(err)
			}
			for i := range revs {
				revs[i].Seq = revs[2].Seq
				if _, err := conn.Exec(ctx, `INSERT INTO plan_revisions(session_id, plan_id, revision, body) VALUES('s', 'p', $1, $2)`,
					revs[i].Revision, mustJSON(revs[i])); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := conn.Exec(ctx, `UPDATE plandash_schema SET version = $1`, slices.Index(migrations(), revisionDeltas)); err != nil {
				t.Fatal(err)
			}
			again := open(t, url).Plans()
			hist, err := again.History(ctx, "s", "p")
			if err != nil || len(hist) != 3 || !slices.EqualFunc(hist, revs, func(h plans.Revision, p plans.Plan) bool { return reflect.DeepEqual(h.Plan, p) }) {
				t.Fatalf("History = %+v, %v; want the three whole revisions", hist, err)
			}
			infos, _, newest, err := again.RevisionsPage(ctx, "s", "p", paging.Request{Limit: 10})
			if err != nil || newest != 3 || len(infos) != 3 || !infos[0].At.Equal(revs[2].Updated) {
				t.Fatalf("RevisionsPage = %+v, %d, %v; want three, the newest at %v", infos, newest, err, revs[2].Updated)
			}
			next := revs[2]
			next.Revision, next.Updated, next.Entries = 4, time.Unix(40, 0).UTC(), []plans.Entry{{Content: "a", Priority: "high", Status: plans.StatusCancelled}}
			if err := again.Commit(ctx, &plans.Changes{Plans: []*plans.Plan{&next}, Revisions: []*plans.Plan{&next}}); err != nil {
				t.Fatal(err)
			}
			var format int
			if err := conn.QueryRow(ctx, `SELECT format FROM plan_revisions WHERE revision = 4`).Scan(&format); err != nil || format != delta.FormatDelta {
				t.Fatalf("revision 4 has format %d (%v), want a delta", format, err)
			}
			if r, err := again.RevisionAt(ctx, "s", "p", 4); err != nil || !reflect.DeepEqual(r.Plan, next) {
				t.Fatalf("RevisionAt(4) = %+v, %v; want %+v", r.Plan, err, next)
			}
		}},
		{"who submitted a request moves from token_requests into the request", func(t *testing.T, url string) {
			first := open(t, url)
			for _, id := range []string{"owned", "unowned"} {
				r := approval.Request{ID: id, Status: approval.Pending, Title: "Plan " + id, Options: []approval.Action{approval.Approve},
					Default: approval.Reject, Created: time.Unix(1, 0).UTC(), Deadline: time.Unix(60, 0).UTC(), Fingerprint: "fp"}
				if _, _, err := first.Approvals().Create(ctx, r, nil); err != nil {
					t.Fatal(err)
				}
			}
			first.Close()
			conn := connect(t, url)
			if _, err := conn.Exec(ctx, `CREATE TABLE token_requests (request_id text COLLATE "C" PRIMARY KEY, token text NOT NULL);
				INSERT INTO token_requests VALUES ('owned', 'laptop-1'), ('gone', 'laptop-2')`); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `UPDATE plandash_schema SET version = $1`, slices.Index(migrations(), submitterInBody)); err != nil {
				t.Fatal(err)
			}
			again := open(t, url)
			for id, want := range map[string]string{"owned": "token:laptop-1", "unowned": ""} {
				r, err := again.Approvals().Get(ctx, id)
				if err != nil || r.SubmittedBy != want || r.Title != "Plan "+id || len(r.Options) != 1 {
					t.Fatalf("Get(%q) = %+v, %v; want it whole, submitted by %q", id, r, err, want)
				}
			}
			var left bool
			if err := conn.QueryRow(ctx, `SELECT to_regclass('token_requests') IS NOT NULL`).Scan(&left); err != nil || left {
				t.Fatalf("token_requests is still there (%v, %v)", left, err)
			}
		}},
		{"a database from before chat messages' ids keeps its outbox and gets the table", func(t *testing.T, url string) {
			t0 := time.Unix(100, 0).UTC()
			d := notify.Delivery{Key: "t|w|began", Target: "t", Event: notify.Began, Wait: notify.Wait{ID: "w", Title: "Plan"}, Due: t0, Created: t0}
			first := open(t, url)
			if _, err := first.Notify().Enqueue(ctx, []notify.Delivery{d}); err != nil {
				t.Fatal(err)
			}
			first.Close()
			conn := connect(t, url)
			if _, err := conn.Exec(ctx, `DROP TABLE notify_remote`); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `UPDATE plandash_schema SET version = $1`, slices.Index(migrations(), notifysql.PostgresRemote)); err != nil {
				t.Fatal(err)
			}
			s := open(t, url).Notify()
			got, err := s.Claim(ctx, "a", t0, time.Minute, 10)
			if err != nil || len(got) != 1 || got[0].Wait.Title != "Plan" {
				t.Fatalf("Claim after the upgrade = %+v, %v; want the delivery stored before", got, err)
			}
			got[0].Status, got[0].Done, got[0].Remote = notify.Sent, t0, "m1"
			if ok, err := s.Finish(ctx, "a", got[0]); err != nil || !ok {
				t.Fatalf("Finish = %v, %v", ok, err)
			}
			if r, n, open, err := s.Remote(ctx, "t", "w"); err != nil || r != "m1" || n != 1 || open != 0 {
				t.Fatalf("Remote = %q %d %d %v", r, n, open, err)
			}
		}},
		{"instances starting at once migrate once", func(t *testing.T, url string) {
			const n = 4
			errs := make(chan error, n)
			dbs := make(chan *DB, n)
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					db, err := Open(ctx, url, Options{MaxConns: 2})
					errs <- err
					if err == nil {
						dbs <- db
					}
				})
			}
			wg.Wait()
			close(errs)
			close(dbs)
			for db := range dbs {
				db.Close()
			}
			for err := range errs {
				if err != nil {
					t.Errorf("concurrent Open: %v", err)
				}
			}
			if v := schemaVersion(t, url); v != known {
				t.Fatalf("version = %d, want %d", v, known)
			}
		}},
		{"a newer schema is refused", func(t *testing.T, url string) {
			open(t, url).Close()
			conn := connect(t, url)
			if _, err := conn.Exec(ctx, `UPDATE plandash_schema SET version = $1`, known+1); err != nil {
				t.Fatal(err)
			}
			db, err := Open(ctx, url, Options{})
			if err == nil {
				db.Close()
				t.Fatal("Open accepted a database from a newer plandash")
			}
			var se *SchemaError
			if !errors.As(err, &se) || se.Found != known+1 || se.Known != known || !strings.Contains(err.Error(), "newer") {
				t.Fatalf("Open = %v; want a SchemaError saying the schema is newer (%d > %d)", err, known+1, known)
			}
			if v := schemaVersion(t, url); v != known+1 {
				t.Fatalf("the refused database's version changed to %d", v)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, pgtest.URL(t)) })
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, url string
		opts      Options
		want      string
	}{
		{"not a URL", "postgres://u:secret@host:notaport/db", Options{}, "does not parse"},
		{"a negative pool", "postgres://u:secret@127.0.0.1:1/db", Options{MaxConns: -1}, "pool size"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, tt.url, tt.opts)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "secret") {
				t.Fatalf("Open = %v; want %q, and no password", err, tt.want)
			}
		})
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/notify/notifysql"
	"github.com/plandash/plandash/internal/notify/notifytest"
)

func TestNotifyContract(t *testing.T) {
	var path string
	notifytest.Run(t, func(t *testing.T) notify.Store {
		path = filepath.Join(t.TempDir(), "plandash.db")
		return openAt(t, path).Notify()
	}, func(t *testing.T) notify.Store {
		return openAt(t, path).Notify() // a second process's handle on the same file
	})
}

func openAt(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestAddsNotifyRemote: a file from before the step that keeps chat messages' ids keeps its
// outbox and gets the table.
func TestAddsNotifyRemote(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	t0 := time.Unix(100, 0).UTC()
	d := notify.Delivery{Key: "t|w|began", Target: "t", Event: notify.Began, Wait: notify.Wait{ID: "w", Title: "Plan"}, Due: t0, Created: t0}
	// The file as the steps before that one left it, with a delivery in its outbox.
	before := slices.Index(migrations(), notifysql.SQLiteRemote)
	fileAtStep(t, path, before)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = notifysql.New(raw, notifysql.SQLite).Enqueue(ctx, []notify.Delivery{d})
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path).Notify()
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
}

// TestOutboxHasItsOwnFile: the outbox commits its own bookkeeping on its own file's writer,
// without waiting for the disk, and the main file's writer keeps waiting for it
// (synchronous=FULL) for everyone else; the targets stay in the main file.
func TestOutboxHasItsOwnFile(t *testing.T) {
	ctx := context.Background()
	db := openAt(t, filepath.Join(t.TempDir(), "plandash.db"))
	s := db.Notify()
	t0 := time.Unix(100, 0).UTC()
	d := notify.Delivery{Key: "t|w|began", Target: "t", Event: notify.Began, Wait: notify.Wait{ID: "w"}, Due: t0, Created: t0}
	got, commit, err := s.EnqueueClaimed(ctx, "a", t0, time.Minute, []notify.Delivery{d})
	if err == nil {
		err = commit()
	}
	if err != nil || len(got) != 1 {
		t.Fatalf("EnqueueClaimed = %+v, %v", got, err)
	}
	got[0].Status, got[0].Done = notify.Sent, t0
	if n, err := s.FinishAll(ctx, "a", got); err != nil || n != 1 {
		t.Fatalf("FinishAll = %d, %v", n, err)
	}
	if _, err := s.Skip(ctx, []string{"w"}, notify.Began, t0, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "a", t0, time.Minute, 10); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTarget(ctx, notify.Target{ID: "t", Kind: notify.Webhook, URL: "http://x"}); err != nil {
		t.Fatal(err)
	}
	// A link's use commits waiting for the disk, and hands the writer back as it was.
	if err := s.AddLink(ctx, notify.Link{Hash: "h", WaitID: "w", Expires: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.UseLink(ctx, "h", t0); err != nil || !ok {
		t.Fatalf("UseLink = %v, %v", ok, err)
	}
	for _, c := range []struct {
		db         *sql.DB
		sync       string
		outbox, tg int
	}{{db.w, "2", 0, 1}, {db.out.w, "1", 1, 0}} {
		var sync string
		var outbox, tg int
		if err := c.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM notify_outbox), (SELECT count(*) FROM notify_targets)`).Scan(&outbox, &tg); err != nil {
			t.Fatal(err)
		}
		if err := c.db.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil || sync != c.sync || outbox != c.outbox || tg != c.tg {
			t.Errorf("synchronous = %s (%v), outbox rows %d, targets %d; want %s, %d, %d", sync, err, outbox, tg, c.sync, c.outbox, c.tg)
		}
	}
}

// TestMovesTheOutbox: a main file whose outbox, messages' ids and links an older plandash
// wrote has them moved to the outbox file at the next start, pending deliveries, leases and
// used links as they were; a start that finds them in both (a crash between the copy and the
// delete) copies nothing twice.
func TestMovesTheOutbox(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plandash.db")
	db := openAt(t, path)
	db.Close()
	old := `INSERT INTO notify_outbox(id, key, target, wait_id, event, wait, due, status, created) VALUES
			(7, 't|w|began', 't', 'w', 'began', '{"id":"w","title":"Plan"}', 100000000000, 'pending', 100000000000),
			(8, 't|v|began', 't', 'v', 'began', '{"id":"v"}', 100000000000, 'sent', 100000000000);
		INSERT INTO notify_remote(target, wait_id, remote, created) VALUES('t', 'v', 'm1', 100000000000);
		INSERT INTO notify_links(hash, body, expires, used) VALUES('h', '{"WaitID":"w","Action":"approve"}', 200000000000, 5);`
	rawExec(t, path, old)
	rawExec(t, filepath.Join(filepath.Dir(path), OutboxFile), `DELETE FROM notify_outbox`)
	for range 2 {
		db = openAt(t, path)
		var left int
		if err := db.w.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM notify_outbox) + (SELECT count(*) FROM notify_remote) + (SELECT count(*) FROM notify_links)`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("rows left in the main file: %d, %v", left, err)
		}
		s := db.Notify()
		if r, n, _, err := s.Remote(ctx, "t", "v"); err != nil || r != "m1" || n != 1 {
			t.Fatalf("Remote = %q %d %v", r, n, err)
		}
		if l, err := s.Link(ctx, "h"); err != nil || l.WaitID != "w" || l.Used.IsZero() {
			t.Fatalf("Link = %+v, %v; want it moved, used", l, err)
		}
		var rows int
		if err := db.out.w.QueryRowContext(ctx, `SELECT count(*) FROM notify_outbox`).Scan(&rows); err != nil || rows != 2 {
			t.Fatalf("outbox rows = %d, %v; want 2", rows, err)
		}
		db.Close()
		rawExec(t, path, old) // as if the delete had not committed
	}
	got, err := openAt(t, path).Notify().Claim(ctx, "a", time.Unix(200, 0), time.Minute, 10)
	if err != nil || len(got) != 1 || got[0].ID != 7 || got[0].Wait.Title != "Plan" {
		t.Fatalf("Claim after the move = %+v, %v; want the pending delivery, id 7", got, err)
	}
}

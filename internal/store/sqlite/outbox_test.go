package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
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
	if _, err := openAt(t, path).Notify().Enqueue(ctx, []notify.Delivery{d}); err != nil {
		t.Fatal(err)
	}
	rawExec(t, path, `DROP TABLE notify_remote; PRAGMA user_version = `+strconv.Itoa(slices.Index(migrations(), notifysql.SQLiteRemote)))
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

// TestOutboxLeavesTheWriterDurable: the outbox commits its own bookkeeping without waiting for
// the disk, and hands the one writer back waiting for it (synchronous=FULL) for everyone else.
func TestOutboxLeavesTheWriterDurable(t *testing.T) {
	ctx := context.Background()
	db := openAt(t, filepath.Join(t.TempDir(), "plandash.db"))
	s := db.Notify()
	t0 := time.Unix(100, 0).UTC()
	d := notify.Delivery{Key: "t|w|began", Target: "t", Event: notify.Began, Wait: notify.Wait{ID: "w"}, Due: t0, Created: t0}
	got, err := s.EnqueueClaimed(ctx, "a", t0, time.Minute, []notify.Delivery{d})
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
	var sync string
	if err := db.w.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil || sync != "2" {
		t.Fatalf("the writer's synchronous = %s, %v; want 2 (FULL)", sync, err)
	}
}

package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/notify"
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

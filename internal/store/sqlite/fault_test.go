package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/testdisk"
)

// TestOpenOnFullDisk: a database closed cleanly (its WAL index removed) on a disk that then
// fills up cannot be opened, since SQLite must create its WAL index; the error says the disk is
// full rather than only "disk I/O error".
func TestOpenOnFullDisk(t *testing.T) {
	path := filepath.Join(testdisk.Mount(t, 8<<20), "data", "plandash.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	defer testdisk.Fill(t, filepath.Dir(path))()
	db, err = Open(context.Background(), path)
	if err == nil {
		db.Close()
		t.Skip("SQLite opened the database on a full disk: nothing to explain")
	}
	if !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("opening on a full disk: %v; want it to say disk full", err)
	}
}

package sqlite

import (
	"context"
	"errors"
	"os"
	"syscall"

	"modernc.org/sqlite"

	"github.com/plandash/plandash/internal/store/fault"
)

// SQLite's primary result codes that mean the storage failed, not the statement: an extended
// code (SQLITE_IOERR_WRITE, _SHMSIZE, …) carries its primary code in the low byte.
const (
	sqliteIOErr = 10 // SQLITE_IOERR
	sqliteFull  = 13 // SQLITE_FULL
)

// faults classifies the database file's storage failures and remembers them (fault.Health),
// for the DB's readiness and metrics.
type faults struct {
	dir    string // the database file's directory, whose file system is asked for room
	health fault.Health
}

// note turns a storage failure in err into a *fault.Error and records it; other errors pass
// unchanged, and a write that succeeded (nil) says the store writes again. Every write of the
// stores returns through it, so a full disk is a 503 the client retries, not a 500.
func (f *faults) note(err error) error {
	if err == nil {
		f.health.Recovered()
		return nil
	}
	if cause, ok := f.cause(err); ok {
		return f.health.Note(&fault.Error{Cause: cause, Err: err})
	}
	return err
}

func (f *faults) cause(err error) (fault.Cause, bool) {
	if errors.Is(err, syscall.ENOSPC) {
		return fault.DiskFull, true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return "", false
	}
	switch se.Code() & 0xff {
	case sqliteFull:
		return fault.DiskFull, true
	case sqliteIOErr:
		// SQLite reports a write that found no room as an I/O error as often as SQLITE_FULL
		// (growing the WAL index, an fsync): ask the file system.
		if f.noRoom() {
			return fault.DiskFull, true
		}
		return fault.DiskError, true
	}
	return "", false
}

// minRoom is the free space below which a write's I/O error is taken for a full disk.
const minRoom = 64 << 10

// writeProbe writes and syncs a page-sized file beside the database and removes it: the cheap
// way to learn whether a write would find room, for a readiness probe after a storage fault.
func (f *faults) writeProbe() error {
	tmp, err := os.CreateTemp(f.dir, ".ready-*")
	if err != nil {
		return f.note(err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(make([]byte, 4096))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return f.note(err)
}

// Ready reports whether the database answers and, after a storage fault, whether the disk
// takes writes again: a readiness probe that says "not ready" while writes would fail, and
// "ready" again by itself once they would not.
func (db *DB) Ready(ctx context.Context) error {
	if _, err := db.approvals.CountPending(ctx); err != nil {
		return err
	}
	if db.faults.health.Failing() == nil {
		return nil
	}
	return db.faults.writeProbe() // its success clears the fault (note)
}

// Health is the record of the database's storage faults, for metrics.
func (db *DB) Health() *fault.Health { return &db.faults.health }

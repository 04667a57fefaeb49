// Package fault is what the stores share about failures of their storage that pass by
// themselves: a full disk, a database restarting or out of reach. Each store classifies its
// driver's errors into an *Error with a Cause; the error's kind is errs.Unavailable, which the
// edges map once (HTTP: 503 with Retry-After), so a client waits and tries again instead of
// taking a 500 for a fault of plandash. A Health remembers the last such failure, so a
// readiness probe reports not ready while the store cannot write, and counts them by cause.
package fault

import (
	"errors"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Cause names why the store is unavailable, in words a user and a dashboard read.
type Cause string

// The causes.
const (
	// DiskFull: the file system holding the database has no room left.
	DiskFull Cause = "disk full"
	// DiskError: the database file could not be read or written (an I/O error).
	DiskError Cause = "disk error"
	// DatabaseUnavailable: the database server refused, dropped or could not take the
	// connection (restarting, shutting down, out of connections, unreachable).
	DatabaseUnavailable Cause = "database unavailable"
)

// Causes lists every cause, for series that start at zero.
func Causes() []Cause { return []Cause{DiskFull, DiskError, DatabaseUnavailable} }

// Label is the cause as a metric label value: "disk_full".
func (c Cause) Label() string {
	b := []byte(c)
	for i, ch := range b {
		if ch == ' ' {
			b[i] = '_'
		}
	}
	return string(b)
}

// Error is a storage failure that passes by itself. Its message names the cause and says what
// to do; Err, the driver's error, is for logs.
type Error struct {
	Cause Cause
	Err   error
}

func (e *Error) Error() string {
	switch e.Cause {
	case DiskFull:
		return "disk full: the database's disk has no space left, so this could not be stored; try again once there is room"
	case DiskError:
		return "disk error: the database file could not be written; try again in a moment"
	}
	return "database unavailable: the database did not take this (restarting or out of reach); try again in a moment"
}

// Unwrap exposes the driver's error.
func (e *Error) Unwrap() error { return e.Err }

// ErrorKind makes the error a domain error of kind Unavailable.
func (e *Error) ErrorKind() errs.Kind { return errs.Unavailable }

// RetryAfter is how long a client should wait before it tries again: a restarting database is
// back within seconds; room on a disk takes someone freeing it.
func (e *Error) RetryAfter() time.Duration {
	if e.Cause == DiskFull {
		return 5 * time.Second
	}
	return time.Second
}

// Health remembers a store's storage faults: the last one until a write succeeds again, and a
// count by cause. The zero value is ready to use; it is safe for concurrent use.
type Health struct {
	mu     sync.Mutex
	last   *Error
	counts map[Cause]uint64
}

// Note records err if it is a storage fault, and returns it unchanged: stores pass every
// error of theirs through it.
func (h *Health) Note(err error) error {
	var f *Error
	if !errors.As(err, &f) {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = f
	if h.counts == nil {
		h.counts = map[Cause]uint64{}
	}
	h.counts[f.Cause]++
	return err
}

// Failing is the last storage fault, or nil when there was none since the store last wrote
// (Recovered).
func (h *Health) Failing() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil {
		return nil // not a typed nil in an error
	}
	return h.last
}

// Recovered says a write succeeded: the store can write again.
func (h *Health) Recovered() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = nil
}

// Count is how many storage faults of cause the store met.
func (h *Health) Count(c Cause) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[c]
}

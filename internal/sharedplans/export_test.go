package sharedplans

import (
	"errors"
	"time"
)

// What only tests use: options, and views of state production code does not ask for.

// WithClock replaces time.Now for updatedAt stamps and temp-file ages.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithTempSweep sets how often a Watcher removes old temp files (TempSweepInterval by default).
func WithTempSweep(every time.Duration) Option { return func(s *Store) { s.sweep = every } }

// Store returns the store the tools work on.
func (t *Toolset) Store() *Store { return t.store }

// Corrupt reports whether the event is about a plan file that cannot be decoded.
func (e Event) Corrupt() bool { return errors.Is(e.Err, ErrCorrupt) }

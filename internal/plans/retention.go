package plans

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Retention bounds how much revision history is kept. Zero fields bound nothing. Whatever the
// bounds, the newest revision of every plan is kept, and the plans themselves (their current
// state) are never pruned.
type Retention struct {
	// MaxAge drops revisions made longer ago than this.
	MaxAge time.Duration
	// MaxRevisions keeps at most this many of each plan's newest revisions.
	MaxRevisions int
}

// IsZero reports whether r keeps everything.
func (r Retention) IsZero() bool { return r.MaxAge <= 0 && r.MaxRevisions <= 0 }

// PruneStats says what a Prune removed.
type PruneStats struct {
	Revisions int64 // revision rows deleted
	Plans     int   // plans that lost revisions
	Pages     int64 // database pages given back to the file system
}

// Pruner is a Store that can drop history beyond a Retention.
type Pruner interface {
	// Prune deletes the revisions r does not keep, as of now, in one transaction, and returns
	// the space freed to the file system where the database can.
	Prune(ctx context.Context, now time.Time, r Retention) (PruneStats, error)
}

// Prune drops the revision history beyond the configured Retention, as of now. It is meant to
// run now and then (say hourly); with a zero Retention it does nothing.
func (s *Service) Prune(ctx context.Context, now time.Time) (PruneStats, error) {
	if s.cfg.Retention.IsZero() {
		return PruneStats{}, nil
	}
	p, ok := s.store.(Pruner)
	if !ok {
		return PruneStats{}, errs.New(errs.Invalid, "this store cannot prune history")
	}
	return p.Prune(ctx, now, s.cfg.Retention)
}

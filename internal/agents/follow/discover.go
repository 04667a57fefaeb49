package follow

import (
	"log/slog"
	"time"
)

// DiscoverOptions tunes the Follower an agent's discoverer runs over the agent's own session
// files. Zero values take the defaults named.
type DiscoverOptions struct {
	// StateDir keeps how far each file was read across restarts (Source.StateFile); none when
	// empty.
	StateDir string
	// Since limits the first read to files modified this recently; 7 days when zero.
	Since time.Duration
	// Rescan is how often the tree is checked besides file-system events; 30s when zero.
	Rescan time.Duration
	// Log receives skipped lines and failed applies; slog.Default when nil.
	Log *slog.Logger
	// Now is the clock for Since; time.Now when nil.
	Now func() time.Time
}

// DiscoverSince is how far back a discoverer first reads by default: the sessions of the last
// days show on a first start without any install.
const DiscoverSince = 7 * 24 * time.Hour

// Discover is the Follower of an agent's session files under dir, read without any hook
// installed (a discoverer).
func Discover(dir string, src Source, opts DiscoverOptions) *Follower {
	if opts.Since <= 0 {
		opts.Since = DiscoverSince
	}
	return New(dir, src, Options{StateDir: opts.StateDir, Since: opts.Since, Rescan: opts.Rescan, Log: opts.Log, Now: opts.Now})
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// ListenOptions tunes a Listener.
type ListenOptions struct {
	Log *slog.Logger // slog.Default when nil
	// MinBackoff and MaxBackoff bound the wait between reconnects, doubled after each failure;
	// 50ms and 5s when zero.
	MinBackoff, MaxBackoff time.Duration
	// OnReconnect, when set, is called each time the listening connection failed (or could not
	// be opened) and another attempt follows, for the operator's metrics.
	OnReconnect func()
}

// Listener hears the notes other instances commit and hands them to a function, in commit order
// within each stream. It listens on a connection of its own, outside the pool; when that
// connection fails it reconnects with backoff and first catches up from the database on what was
// committed meanwhile, by each stream's sequence, so the function misses no change and is not
// given one twice.
type Listener struct {
	db    *DB
	fn    func(context.Context, Note)
	opts  ListenOptions
	ready chan struct{}

	// Per stream: seen is the newest Seq heard or caught up on, where the next catch-up starts;
	// skip is the Seq a catch-up reached, at or below which notes arriving late are duplicates.
	// Only the Run goroutine touches them.
	seen, skip map[string]uint64
}

// Listener makes a listener that calls fn with every note of another instance (and with changes
// read back in a catch-up, whoever made them). fn runs on the listener's goroutine, with Run's
// context: it must be quick. Start it with Run.
func (db *DB) Listener(fn func(context.Context, Note), opts ListenOptions) *Listener {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 50 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(5*time.Second, opts.MinBackoff)
	}
	return &Listener{db: db, fn: fn, opts: opts, ready: make(chan struct{})}
}

// Ready is closed once the listener first listens: changes committed after that reach fn.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// ApplicationName is what the listener's connection calls itself in pg_stat_activity, so an
// operator (or a test) can tell it apart.
func (db *DB) ApplicationName() string { return "plandash-listen-" + db.note.instance }

// Instance is this process's id in the notes it sends.
func (db *DB) Instance() string { return db.note.instance }

// Run listens until ctx ends.
func (l *Listener) Run(ctx context.Context) {
	wait := l.opts.MinBackoff
	for {
		start := time.Now()
		err := l.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > l.opts.MaxBackoff {
			wait = l.opts.MinBackoff // it was up a while: this is a new failure, not the same one
		}
		l.opts.Log.Warn("postgres: the listening connection failed; reconnecting", "err", err, "in", wait)
		if l.opts.OnReconnect != nil {
			l.opts.OnReconnect()
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, l.opts.MaxBackoff)
	}
}

// session connects, listens, catches up, then hands on notifications until the connection fails.
func (l *Listener) session(ctx context.Context) error {
	cfg := l.db.connConfig.Copy()
	cfg.RuntimeParams["application_name"] = l.db.ApplicationName()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.db.note.channel}.Sanitize()); err != nil {
		return err
	}
	// Listening first, reading second: a change committed in between is both read and heard,
	// and skip drops the second copy; none falls between the two.
	if l.seen == nil {
		seen, err := l.db.clocks(ctx)
		if err != nil {
			return err
		}
		l.seen, l.skip = seen, map[string]uint64{}
		close(l.ready)
	} else {
		for _, s := range streams {
			if err := l.catchUp(ctx, s); err != nil {
				return err
			}
		}
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		note, err := decodeNote(n.Payload)
		if err != nil {
			l.opts.Log.Error("postgres: a notification was not understood; ignored", "err", err)
			continue
		}
		if err := l.hear(ctx, note); err != nil {
			return err
		}
	}
}

// hear hands one heard note on, unless a catch-up already did or this instance made it.
func (l *Listener) hear(ctx context.Context, n Note) error {
	stream := streamOf(n.Kind)
	if n.Kind == noteStream {
		stream = n.ID
	}
	if n.Seq <= l.skip[stream] {
		return nil
	}
	if n.Kind == noteStream {
		if n.Instance == l.db.note.instance {
			l.seen[stream] = max(l.seen[stream], n.Seq)
			return nil
		}
		return l.catchUp(ctx, stream)
	}
	l.seen[stream] = max(l.seen[stream], n.Seq)
	if n.Instance != l.db.note.instance {
		l.fn(ctx, n)
	}
	return nil
}

// catchUp reads back what stream committed after the last Seq seen and hands it on.
func (l *Listener) catchUp(ctx context.Context, stream string) error {
	notes, cur, err := l.db.changesSince(ctx, stream, l.seen[stream])
	if err != nil {
		return fmt.Errorf("catch up on %s: %w", stream, err)
	}
	for _, n := range notes {
		l.fn(ctx, n)
	}
	l.seen[stream] = max(l.seen[stream], cur)
	l.skip[stream] = max(l.skip[stream], cur)
	return nil
}

// clocks reads every stream's newest committed Seq.
func (db *DB) clocks(ctx context.Context) (map[string]uint64, error) {
	out := map[string]uint64{}
	for _, s := range streams {
		_, cur, err := db.changesSince(ctx, s, ^uint64(0)>>1)
		if err != nil {
			return nil, err
		}
		out[s] = cur
	}
	return out, nil
}

// changesSince lists, as notes, what stream committed after since, and the stream's newest
// committed Seq, read in one snapshot. Every change numbered up to that Seq is visible (each
// stream commits in order), so the list misses nothing before it.
func (db *DB) changesSince(ctx context.Context, stream string, since uint64) ([]Note, uint64, error) {
	var notes []Note
	var cur int64
	q, ok := sinceQueries[stream]
	if !ok {
		return nil, 0, errors.New("no stream " + stream)
	}
	err := readSnapshot(ctx, db.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, q.clock).Scan(&cur); err != nil {
			return err
		}
		if int64(since) >= cur {
			return nil
		}
		rows, err := tx.Query(ctx, q.rows, int64(since), cur)
		if err != nil {
			return err
		}
		notes, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Note, error) {
			var n Note
			var seq int64
			err := r.Scan(&n.Kind, &n.ID, &n.Part, &seq)
			n.Seq = uint64(seq)
			return n, err
		})
		return err
	})
	return notes, uint64(cur), err
}

// sinceQueries read each stream's clock, then its changes in ($1, $2] as (kind, id, part, seq),
// oldest first.
var sinceQueries = map[string]struct{ clock, rows string }{
	streamPlans: {`SELECT seq FROM plans_clock`, `
		SELECT 'session', id, '', seq FROM sessions WHERE seq > $1 AND seq <= $2
		UNION ALL SELECT 'session', id, 'activity', seq FROM sessions WHERE seq > $1 AND seq <= $2
		UNION ALL SELECT 'session', session_id, 'plan:' || plan_id, seq FROM plans WHERE seq > $1 AND seq <= $2
		UNION ALL SELECT 'session', session_id, 'call:' || id, seq FROM tool_calls WHERE seq > $1 AND seq <= $2
		ORDER BY 4`},
	streamApprovals: {`SELECT n FROM approvals_clock`, `
		SELECT 'approval', id, '', changed FROM approval_requests WHERE changed > $1 AND changed <= $2
		UNION ALL SELECT 'rules', id, '', changed FROM approval_rules WHERE changed > $1 AND changed <= $2
		ORDER BY 4`},
	streamHistory: {`SELECT coalesce(max(seq), 0) FROM shared_plan_history`, `
		SELECT 'shared', name, '', max(seq) FROM shared_plan_history WHERE seq > $1 AND seq <= $2 GROUP BY name ORDER BY 4`},
	streamPermissions: {`SELECT n FROM permissions_clock`, `
		SELECT 'permissions', stream, '', max(changed) FROM permission_requests WHERE changed > $1 AND changed <= $2 GROUP BY stream ORDER BY 4`},
	streamWaits: {`SELECT n FROM waits_clock`, `
		SELECT 'waits', id, '', changed FROM kept_waits WHERE changed > $1 AND changed <= $2 ORDER BY 4`},
}

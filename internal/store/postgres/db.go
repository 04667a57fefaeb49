// Package postgres is plandash's store on PostgreSQL, for a team running several plandash
// instances on one database. One DB per process hands out the same three stores as the SQLite
// package (sessions and plans, the approval gate, the shared-plan history) and they pass the
// same contract suites.
//
// What changes with several instances on one database:
//
//   - Change sequence numbers come from database sequences, so all instances share one
//     sequence space. A plans Commit and a history Record draw their number while holding a
//     transaction-scoped advisory lock, so numbers become visible in the order they were
//     drawn: a reader that has seen number n has seen every change numbered below n, which is
//     what makes ChangedSince exact across instances (see plansStore.Commit).
//   - A decision at the gate is a conditional UPDATE … WHERE status = 'pending': under READ
//     COMMITTED the second of two concurrent deciders waits for the first and then finds the
//     row no longer pending, whichever instance or connection it runs on.
//   - The schema is migrated at start-up under an advisory lock (see migrate).
//   - Every commit notifies its changes (ids only) on a channel of the schema, inside its
//     transaction, and a Listener hears other instances' notes and, after losing its
//     connection, catches up from each stream's sequence (see Note and Listener). The gate's
//     change numbers come from a database sequence (NextSeq), and its commits are ordered by
//     approvals_clock, so a catch-up on approvals is exact too.
//
// Times are stored as Unix nanoseconds (bigint), as in the SQLite store, so a value read back
// is exactly the value written; bodies are the domain values as json (not jsonb, which would
// reformat the raw JSON the domain keeps verbatim).
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/store/fault"
)

// Options tunes the connection pool.
type Options struct {
	// MaxConns is the largest number of connections the pool opens; 0 keeps pgx's default
	// (the larger of 4 and the number of CPUs). A database shared by many instances may need it
	// lower, to stay under the server's max_connections.
	MaxConns int32
}

// DB is the one handle on the PostgreSQL database. Its stores live as long as it does.
type DB struct {
	pool       *dbPool         // classifies the database's faults (fault.go)
	connConfig *pgx.ConnConfig // for the listener's own connection
	note       *notifier

	plans     *plansStore
	approvals *approvalStore
	history   *historyStore
	perms     *permissionStore
}

// Open connects to the database at url (postgres://user:pass@host:port/db?…; every libpq
// parameter pgx knows, and run-time settings such as search_path) and brings its schema up to
// date. It refuses a database whose schema is newer than this binary knows (a *SchemaError).
// The tables live in the first schema of the connection's search_path.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors quote the URL, password included; say what is wrong without it.
		return nil, errors.New("the PostgreSQL URL does not parse: want postgres://user:password@host:port/database")
	}
	if opts.MaxConns < 0 {
		return nil, fmt.Errorf("pool size %d: want 0 (the default) or more", opts.MaxConns)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	pgp, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	pool := &dbPool{Pool: pgp, health: &fault.Health{}}
	where := cfg.ConnConfig.Host + "/" + cfg.ConnConfig.Database
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open PostgreSQL %s: %w", where, err)
	}
	note, err := newNotifier(ctx, pool)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open PostgreSQL %s: %w", where, err)
	}
	db := &DB{pool: pool, connConfig: cfg.ConnConfig, note: note,
		approvals: &approvalStore{pool: pool, note: note}, history: &historyStore{pool: pool, note: note},
		perms: &permissionStore{pool: pool, note: note}}
	if db.plans, err = openPlans(ctx, pool, note); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open PostgreSQL %s: %w", where, err)
	}
	return db, nil
}

// Plans is the store of sessions, plans, tool calls and activity.
func (db *DB) Plans() plans.Store { return db.plans }

// Approvals is the approval gate's store.
func (db *DB) Approvals() approval.Store { return db.approvals }

// SharedHistory is the history of docker-agent's shared plans.
func (db *DB) SharedHistory() sharedplans.HistoryStore { return db.history }

// Close closes the pool, waiting for connections in use to be returned. The stores must not be
// used afterwards.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plandash/plandash/internal/store/fault"
)

// dbPool is the connection pool as the stores use it: every error that says the database is out
// of reach (refused, dropped, restarting, out of connections, out of disk) comes back as a
// *fault.Error and is remembered in health, whichever query met it. The stores' code stays
// plain pgx: queries, rows, transactions and batches are wrapped here, once.
type dbPool struct {
	*pgxpool.Pool
	health *fault.Health
}

// note classifies err (see causeOf) and records it; other errors pass unchanged.
func (p *dbPool) note(err error) error {
	if err == nil {
		return nil
	}
	if c, ok := causeOf(err); ok {
		return p.health.Note(&fault.Error{Cause: c, Err: err})
	}
	return err
}

// wrote notes the outcome of a write: success says the database writes again.
func (p *dbPool) wrote(err error) error {
	if err == nil {
		p.health.Recovered()
	}
	return p.note(err)
}

// causeOf says whether err means the database could not take the query, rather than refused
// it: only such failures pass by themselves when asked again.
func causeOf(err error) (fault.Cause, bool) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false // the caller gave up: not the database's doing
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "53100": // disk_full
			return fault.DiskFull, true
		case strings.HasPrefix(pe.Code, "08"), // connection_exception and its kinds
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // admin/crash shutdown, cannot_connect_now
			pe.Code == "53300", // too_many_connections
			pe.Code == "25006": // read_only_sql_transaction: a standby, mid-failover
			return fault.DatabaseUnavailable, true
		}
		return "", false // the statement's own error
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), pgconn.SafeToRetry(err), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), errors.As(err, &ne):
		return fault.DatabaseUnavailable, true
	}
	return "", false
}

// Exec runs a statement outside a transaction.
func (p *dbPool) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := p.Pool.Exec(ctx, sql, args...)
	return tag, p.wrote(err)
}

// Query runs a query on a connection of the pool.
func (p *dbPool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	r, err := p.Pool.Query(ctx, sql, args...)
	if err != nil {
		return r, p.note(err)
	}
	return &rows{r, p}, nil
}

// QueryRow runs a query for one row; its error comes with Scan.
func (p *dbPool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return row{p.Pool.QueryRow(ctx, sql, args...), p}
}

// Begin starts a transaction (pgx.BeginFunc's way in).
func (p *dbPool) Begin(ctx context.Context) (pgx.Tx, error) {
	t, err := p.Pool.Begin(ctx)
	if err != nil {
		return nil, p.note(err)
	}
	return &tx{Tx: t, p: p}, nil
}

// BeginTx starts a transaction with options.
func (p *dbPool) BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	t, err := p.Pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, p.note(err)
	}
	return &tx{t, p, opts.AccessMode == pgx.ReadOnly}, nil
}

// tx is a transaction whose errors are classified.
type tx struct {
	pgx.Tx
	p        *dbPool
	readOnly bool // its commit says nothing of whether writes succeed
}

func (t *tx) Begin(ctx context.Context) (pgx.Tx, error) {
	n, err := t.Tx.Begin(ctx)
	if err != nil {
		return nil, t.p.note(err)
	}
	return &tx{n, t.p, t.readOnly}, nil
}

func (t *tx) Commit(ctx context.Context) error {
	if t.readOnly {
		return t.p.note(t.Tx.Commit(ctx))
	}
	return t.p.wrote(t.Tx.Commit(ctx))
}

func (t *tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := t.Tx.Exec(ctx, sql, args...)
	return tag, t.p.note(err)
}

func (t *tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	r, err := t.Tx.Query(ctx, sql, args...)
	if err != nil {
		return r, t.p.note(err)
	}
	return &rows{r, t.p}, nil
}

func (t *tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return row{t.Tx.QueryRow(ctx, sql, args...), t.p}
}

func (t *tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return batch{t.Tx.SendBatch(ctx, b), t.p}
}

type rows struct {
	pgx.Rows
	p *dbPool
}

func (r *rows) Err() error { return r.p.note(r.Rows.Err()) }

type row struct {
	pgx.Row
	p *dbPool
}

func (r row) Scan(dest ...any) error { return r.p.note(r.Row.Scan(dest...)) }

type batch struct {
	pgx.BatchResults
	p *dbPool
}

func (b batch) Exec() (pgconn.CommandTag, error) {
	tag, err := b.BatchResults.Exec()
	return tag, b.p.note(err)
}

func (b batch) Close() error { return b.p.note(b.BatchResults.Close()) }

// Ready reports whether the database answers, its schema is the one this binary migrates to,
// and, after a fault, whether it takes a write again: a readiness probe that says "not ready"
// while writes would fail, and "ready" again by itself once they would not.
func (db *DB) Ready(ctx context.Context) error {
	var version int
	if err := db.pool.QueryRow(ctx, `SELECT version FROM plandash_schema`).Scan(&version); err != nil {
		return fmt.Errorf("read the schema version: %w", err)
	}
	if want := len(migrations()); version != want {
		return fmt.Errorf("the schema is at version %d, want %d", version, want)
	}
	if db.pool.health.Failing() == nil {
		return nil
	}
	// A real write (a new row version, WAL), kept as small as one can be, and only while
	// the last call failed: a probe every few seconds must not write when all is well.
	if _, err := db.pool.Exec(ctx, `UPDATE plandash_schema SET version = version`); err != nil {
		return fmt.Errorf("write to the database: %w", err)
	}
	return nil
}

// Health is the record of the database's faults, for metrics.
func (db *DB) Health() *fault.Health { return db.pool.health }

package notifysql

import (
	"context"
	"database/sql"
	"sync"
)

// stmts keeps the outbox's statements prepared on SQLite's one outbox writer connection.
// SQLite parses and plans a statement each time it is prepared, and the outbox's hot path
// (store what is due, record how it went) is a few small statements per delivery: preparing
// them anew each transaction cost about as much as running them. With one connection, a
// statement prepared on the pool stays prepared on it, and tx.StmtContext reuses it.
// PostgreSQL's driver keeps its own statement cache per connection, so there it is not used.
type stmts struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// maxStmts bounds the kept statements; Skip's "IN (…)" has a text per chunk size.
const maxStmts = 64

// get is query's kept statement, or nil when it is not kept (the caller then runs the text).
// A statement is prepared here only outside a transaction (intx false): the writer's one
// connection is the transaction's meanwhile, and preparing on the pool would wait for it for
// ever. Those a transaction runs are prepared up front (Prepare).
//
// The lock is not held while preparing: that waits for the writer's connection, and a
// transaction holding it asks for its statements here meanwhile.
func (c *stmts) get(ctx context.Context, query string, intx bool) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	st, ok := c.m[query]
	full := len(c.m) >= maxStmts
	c.mu.Unlock()
	if ok || intx || full {
		return st
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil // the direct call says why
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept, ok := c.m[query]; ok { // prepared meanwhile by another caller
		st.Close()
		return kept
	}
	c.m[query] = st
	return st
}

// exec runs query in tx (the outbox writer itself when tx is nil) with its kept statement.
func (s *Store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	query = s.q(query)
	if st := s.stmts.get(ctx, query, tx != nil); st != nil {
		if tx != nil {
			st = tx.StmtContext(ctx, st)
		}
		return st.ExecContext(ctx, args...)
	}
	if tx != nil {
		return tx.ExecContext(ctx, query, args...)
	}
	return s.db.ExecContext(ctx, query, args...)
}

// query is exec's twin for statements that return rows.
func (s *Store) query(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	query = s.q(query)
	if st := s.stmts.get(ctx, query, tx != nil); st != nil {
		if tx != nil {
			st = tx.StmtContext(ctx, st)
		}
		return st.QueryContext(ctx, args...)
	}
	if tx != nil {
		return tx.QueryContext(ctx, query, args...)
	}
	return s.db.QueryContext(ctx, query, args...)
}

// queryRow is query for one row.
func (s *Store) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	query = s.q(query)
	if st := s.stmts.get(ctx, query, tx != nil); st != nil {
		if tx != nil {
			st = tx.StmtContext(ctx, st)
		}
		return st.QueryRowContext(ctx, args...)
	}
	if tx != nil {
		return tx.QueryRowContext(ctx, query, args...)
	}
	return s.db.QueryRowContext(ctx, query, args...)
}

// The statements the outbox's transactions run, prepared up front on SQLite.
const (
	insertDelivery = `INSERT INTO notify_outbox(key, target, wait_id, event, wait, due, status, created, owner, lease_until, attempts)
		VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (key) DO NOTHING RETURNING id`
	insertLink     = `INSERT INTO notify_links(hash, body, expires) VALUES($1, $2, $3)`
	finishDelivery = `UPDATE notify_outbox SET status = $1, error = $2, due = $3, done = $4, owner = '', lease_until = 0
		WHERE id = $5 AND owner = $6 AND status = 'pending'`
	upsertRemote = `INSERT INTO notify_remote(target, wait_id, remote, created) VALUES($1, $2, $3, $4)
		ON CONFLICT (target, wait_id) DO UPDATE SET remote = excluded.remote, created = excluded.created`
	claimDue = `UPDATE notify_outbox SET owner = $1, lease_until = $2, attempts = attempts + 1
		WHERE id IN (SELECT id FROM notify_outbox WHERE status = 'pending' AND due <= $3 AND lease_until <= $3
			ORDER BY due, id LIMIT $4 /*lock*/)
		AND status = 'pending' AND lease_until <= $3
		RETURNING ` + deliveryColumns
)

// Prepare prepares the statements the outbox's transactions run, on SQLite (on PostgreSQL it
// does nothing): call it once, before the store is used, on a store whose tables exist.
func (s *Store) Prepare(ctx context.Context) error {
	if s.stmts == nil {
		return nil
	}
	for _, q := range []string{insertDelivery, insertLink, finishDelivery, upsertRemote, claimDue} {
		q = s.q(q)
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		s.stmts.mu.Lock()
		s.stmts.m[q] = st
		s.stmts.mu.Unlock()
	}
	return nil
}

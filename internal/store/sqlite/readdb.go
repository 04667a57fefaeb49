package sqlite

import (
	"context"
	"database/sql"
	"strconv"
	"sync"
)

// maxReadStmts bounds the statements readDB keeps prepared. The reads are a few dozen texts
// (a list's "IN (?, …)" has one per page size); past the bound a query is prepared per call,
// as without the cache.
const maxReadStmts = 256

// readDB is the read-only pool with its queries kept prepared, once per pooled connection by
// database/sql: SQLite parses and plans a statement each time it is prepared, which costs the
// small reads a live update makes more than running them.
type readDB struct {
	*sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func newReadDB(db *sql.DB) *readDB { return &readDB{DB: db, stmts: map[string]*sql.Stmt{}} }

// stmt is q's kept statement; false when the cache is full or q does not prepare (the direct
// query then reports why).
func (r *readDB) stmt(ctx context.Context, q string) (*sql.Stmt, bool) {
	r.mu.Lock()
	st, ok := r.stmts[q]
	full := len(r.stmts) >= maxReadStmts
	r.mu.Unlock()
	if ok || full {
		return st, ok
	}
	st, err := r.DB.PrepareContext(ctx, q)
	if err != nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if kept, ok := r.stmts[q]; ok { // prepared meanwhile by another caller
		st.Close()
		return kept, true
	}
	r.stmts[q] = st
	return st, true
}

// QueryContext runs q with its kept statement.
func (r *readDB) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st, ok := r.stmt(ctx, q); ok {
		return st.QueryContext(ctx, args...)
	}
	return r.DB.QueryContext(ctx, q, args...)
}

// QueryRowContext runs q with its kept statement.
func (r *readDB) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st, ok := r.stmt(ctx, q); ok {
		return st.QueryRowContext(ctx, args...)
	}
	return r.DB.QueryRowContext(ctx, q, args...)
}

// Close closes the kept statements and the pool.
func (r *readDB) Close() error {
	r.mu.Lock()
	for q, st := range r.stmts {
		st.Close()
		delete(r.stmts, q)
	}
	r.mu.Unlock()
	return r.DB.Close()
}

// limitTo is the LIMIT clause of a read of at most n rows (every row when n is negative), written
// into the statement's text rather than bound. SQLite plans with a bound LIMIT's value, so it
// parses and plans a kept statement again each time one is bound, even to the same number: for
// the live overview's read of one session that was 35 % of its cost. A read has a handful of
// distinct limits, so the texts stay few.
func limitTo(n int) string {
	if n < 0 {
		return ""
	}
	return " LIMIT " + strconv.Itoa(n)
}

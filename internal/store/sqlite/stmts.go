package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/plandash/plandash/internal/plans"
)

// The queries of a batch's reads, run in its transaction (txn) and, prepared once on the
// writer, outside one (plansStore.Session and the others).
const (
	sqlSession      = `SELECT body FROM sessions WHERE id=?`
	sqlPlan         = `SELECT body FROM plans WHERE session_id=? AND plan_id=?`
	sqlToolCall     = `SELECT body FROM tool_calls WHERE session_id=? AND id=?`
	sqlLastActivity = `SELECT id, body FROM activity WHERE session_id=? ORDER BY id DESC LIMIT 1`
)

// writeStmts are the statements every ingest commit runs. They run in a batch's transaction
// on the writer's driver connection (rawConn), which prepares each once. SQLite parses and
// plans a statement each time it is prepared, which cost more CPU than the insert itself: one
// commit of one message prepared six of them.
type writeStmts struct {
	// The rows a batch may write many of, several to a statement (multirow.go).
	upsertSession, upsertPlan, insertRevisionBody, insertRevisionKey, upsertToolCall *multiRow
	// The reads of the store's own methods, outside a batch: on the writer, so that they see
	// the writes of this process, prepared once on its one connection.
	session, plan, toolCall, lastActivity *sql.Stmt
}

// The statements of a batch's activity.
const (
	sqlUpdateActivity = `UPDATE activity SET body=? WHERE id=?`
	sqlInsertActivity = `INSERT INTO activity(session_id, body) VALUES(?,?)`
)

// prepareWrites prepares the statements on w; the tables must exist (migrate ran).
func prepareWrites(ctx context.Context, w *sql.DB) (*writeStmts, error) {
	var (
		st   writeStmts
		errs []error
	)
	prep := func(dst **sql.Stmt, q string) { prepare(ctx, w, &errs, dst, q) }
	st.upsertSession = newMultiRow(`INSERT OR FAIL INTO sessions(id, body, last_seen, ended, seq, first_seen)`, 6,
		` ON CONFLICT(id) DO UPDATE SET body=excluded.body, last_seen=excluded.last_seen, ended=excluded.ended, seq=excluded.seq`)
	st.upsertPlan = newMultiRow(`INSERT OR FAIL INTO plans(session_id, plan_id, removed, updated, body, entry_count, open_count)`, 7,
		` ON CONFLICT(session_id, plan_id) DO UPDATE SET removed=excluded.removed, updated=excluded.updated, body=excluded.body,
			entry_count=excluded.entry_count, open_count=excluded.open_count`)
	st.insertRevisionBody = newMultiRow(`INSERT OR FAIL INTO revision_bodies(id, body, format, at)`, 4, ``)
	st.insertRevisionKey = newMultiRow(`INSERT OR FAIL INTO revision_keys(session_id, plan_id, revision, body_id)`, 4, ``)
	st.upsertToolCall = newMultiRow(`INSERT OR FAIL INTO tool_calls(session_id, id, created, body)`, 4,
		` ON CONFLICT(session_id, id) DO UPDATE SET body=excluded.body`)
	prep(&st.session, sqlSession)
	prep(&st.plan, sqlPlan)
	prep(&st.toolCall, sqlToolCall)
	prep(&st.lastActivity, sqlLastActivity)
	if err := errors.Join(errs...); err != nil {
		st.close()
		return nil, err
	}
	return &st, nil
}

// close releases the statements; the DB closes them too, so this only matters on a failed open.
func (st *writeStmts) close() {
	closeStmts(st.session, st.plan, st.toolCall, st.lastActivity)
}

// prepare prepares q on w into *dst, adding its failure, if any, to *errs.
func prepare(ctx context.Context, w *sql.DB, errs *[]error, dst **sql.Stmt, q string) {
	st, err := w.PrepareContext(ctx, q)
	*dst = st
	*errs = append(*errs, err)
}

// closeStmts closes the statements that were prepared, after a failed open.
func closeStmts(sts ...*sql.Stmt) {
	for _, st := range sts {
		if st != nil {
			st.Close()
		}
	}
}

// oneStmt reads one body with a prepared statement and decodes it; plans.ErrNotFound when
// there is no row.
func oneStmt[T any](ctx context.Context, st *sql.Stmt, args ...any) (T, error) {
	var body []byte
	err := st.QueryRowContext(ctx, args...).Scan(&body)
	if err != nil {
		var zero T
		return zero, notFound(err)
	}
	return decode[T](body)
}

// notFound turns sql.ErrNoRows into plans.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return plans.ErrNotFound
	}
	return err
}

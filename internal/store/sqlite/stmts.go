package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/plandash/plandash/internal/plans"
)

// writeStmts are the statements every ingest commit runs, prepared once on the writer. SQLite
// parses and plans a statement each time it is prepared, which cost more CPU than the insert
// itself: one commit of one message prepared six of them. The writer has a single connection,
// so a statement prepared on the pool stays prepared on that connection, and tx.StmtContext
// reuses it rather than preparing it again.
type writeStmts struct {
	// The rows a batch may write many of, several to a statement (multirow.go).
	upsertSession, upsertPlan, insertRevision, upsertToolCall *multiRow
	updateActivity, insertActivity                            *sql.Stmt
	// The reads a batch makes before it commits, on the writer so they see its own state.
	session, plan, toolCall, lastActivity *sql.Stmt
	// dataVersion tells whether another process wrote the file (current.go).
	dataVersion *sql.Stmt
}

// prepareWrites prepares the statements on w; the tables must exist (migrate ran).
func prepareWrites(ctx context.Context, w *sql.DB) (*writeStmts, error) {
	var (
		st   writeStmts
		errs []error
	)
	prep := func(dst **sql.Stmt, q string) { prepare(ctx, w, &errs, dst, q) }
	multi := func(dst **multiRow, head string, cols int, tail string) {
		m, err := prepareMultiRow(ctx, w, head, cols, tail)
		*dst = m
		errs = append(errs, err)
	}
	multi(&st.upsertSession, `INSERT OR FAIL INTO sessions(id, body, last_seen, ended, seq, first_seen)`, 6,
		` ON CONFLICT(id) DO UPDATE SET body=excluded.body, last_seen=excluded.last_seen, ended=excluded.ended, seq=excluded.seq`)
	multi(&st.upsertPlan, `INSERT OR FAIL INTO plans(session_id, plan_id, removed, updated, body, entry_count, open_count)`, 7,
		` ON CONFLICT(session_id, plan_id) DO UPDATE SET removed=excluded.removed, updated=excluded.updated, body=excluded.body,
			entry_count=excluded.entry_count, open_count=excluded.open_count`)
	multi(&st.insertRevision, `INSERT OR FAIL INTO plan_revisions(session_id, plan_id, revision, body, format, at)`, 6, ``)
	multi(&st.upsertToolCall, `INSERT OR FAIL INTO tool_calls(session_id, id, created, body)`, 4,
		` ON CONFLICT(session_id, id) DO UPDATE SET body=excluded.body`)
	prep(&st.updateActivity, `UPDATE activity SET body=? WHERE id=?`)
	prep(&st.insertActivity, `INSERT INTO activity(session_id, body) VALUES(?,?)`)
	prep(&st.session, `SELECT body FROM sessions WHERE id=?`)
	prep(&st.plan, `SELECT body FROM plans WHERE session_id=? AND plan_id=?`)
	prep(&st.toolCall, `SELECT body FROM tool_calls WHERE session_id=? AND id=?`)
	prep(&st.lastActivity, `SELECT id, body FROM activity WHERE session_id=? ORDER BY id DESC LIMIT 1`)
	prep(&st.dataVersion, `PRAGMA data_version`)
	if err := errors.Join(errs...); err != nil {
		st.close()
		return nil, err
	}
	return &st, nil
}

// close releases the statements; the DB closes them too, so this only matters on a failed open.
func (st *writeStmts) close() {
	for _, m := range []*multiRow{st.upsertSession, st.upsertPlan, st.insertRevision, st.upsertToolCall} {
		m.close()
	}
	closeStmts(st.updateActivity, st.insertActivity, st.session, st.plan, st.toolCall, st.lastActivity, st.dataVersion)
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

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// approvalStore implements approval.Store.
type approvalStore struct {
	w    *sql.DB // the DB's writer
	r    *readDB
	f    *faults // the DB's storage faults
	stmt approvalStmts
}

// approvalStmts are the gate's writes, prepared once on the writer (see writeStmts): at a
// thousand plans a second, SQLite parsing them again for each request and decision took a
// third of the gate's own CPU.
type approvalStmts struct{ create, decide, audit *sql.Stmt }

// openApprovals is the gate's store on w and r; the tables must exist (migrate ran).
func openApprovals(ctx context.Context, w *sql.DB, r *readDB, f *faults) (*approvalStore, error) {
	s := &approvalStore{w: w, r: r, f: f}
	var errs []error
	prep := func(dst **sql.Stmt, q string) { prepare(ctx, w, &errs, dst, q) }
	prep(&s.stmt.create, `INSERT INTO approval_requests(id, status, created, deadline, decided, seq,
		title, agent, session_id, plan_type, plan_size, options, default_outcome, body)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO NOTHING`)
	prep(&s.stmt.decide, `UPDATE approval_requests SET status=?, decided=?, seq=?, body=?
		WHERE id=? AND (status='pending' OR status='elsewhere' AND ?)`)
	prep(&s.stmt.audit, `INSERT INTO approval_audit(at, request_id, session_id, agent, body) VALUES(?,?,?,?,?)`)
	if err := errors.Join(errs...); err != nil {
		closeStmts(s.stmt.create, s.stmt.decide, s.stmt.audit)
		return nil, err
	}
	return s, nil
}

var _ approval.Store = (*approvalStore)(nil)

// Times are Unix nanoseconds; bodies are the domain values as JSON, with the columns that
// queries filter and sort on, and what the inbox lists, copied out of them: a long inbox is
// then read without decoding a plan.
const approvalsSchema = `
CREATE TABLE IF NOT EXISTS approval_requests (
	id TEXT PRIMARY KEY,
	status TEXT NOT NULL,
	created INTEGER NOT NULL,
	deadline INTEGER NOT NULL,
	decided INTEGER,
	seq INTEGER NOT NULL,
	title TEXT NOT NULL,
	agent TEXT NOT NULL,
	session_id TEXT NOT NULL,
	plan_type TEXT NOT NULL,
	plan_size INTEGER NOT NULL,
	options TEXT NOT NULL,
	default_outcome TEXT NOT NULL,
	body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS approval_requests_pending ON approval_requests(created) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS approval_requests_deadline ON approval_requests(deadline) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS approval_requests_decided ON approval_requests(decided) WHERE decided IS NOT NULL;
CREATE TABLE IF NOT EXISTS approval_rules (
	id TEXT PRIMARY KEY,
	created INTEGER NOT NULL,
	revoked INTEGER,
	seq INTEGER NOT NULL,
	body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS approval_audit (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	at INTEGER NOT NULL,
	request_id TEXT NOT NULL,
	session_id TEXT NOT NULL,
	agent TEXT NOT NULL,
	body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS approval_audit_session ON approval_audit(session_id, id);
CREATE INDEX IF NOT EXISTS approval_audit_agent ON approval_audit(agent, id);
`

// Create stores r unless its id is taken.
func (s *approvalStore) Create(ctx context.Context, r approval.Request, events []approval.AuditEvent) (approval.Request, bool, error) {
	var stored approval.Request
	created := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		sum := r.Summary()
		res, err := tx.StmtContext(ctx, s.stmt.create).ExecContext(ctx, r.ID, string(r.Status), r.Created.UnixNano(), r.Deadline.UnixNano(), decidedAt(r), r.Seq,
			sum.Title, sum.Agent, sum.SessionID, sum.PlanType, sum.PlanSize, joinOptions(sum.Options), string(sum.Default), mustJSON(r))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			stored, err = get(ctx, tx, r.ID)
			return err
		}
		stored, created = r, true
		return s.audit(ctx, tx, events)
	})
	return stored, created, err
}

// Decide stores r if the stored request is still pending, or Elsewhere when r settles it.
func (s *approvalStore) Decide(ctx context.Context, r approval.Request, events []approval.AuditEvent) (bool, error) {
	ok := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.stmt.decide).ExecContext(ctx, string(r.Status), decidedAt(r), r.Seq, mustJSON(r), r.ID, r.Settles())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		ok = true
		return s.audit(ctx, tx, events)
	})
	return ok, err
}

// Get returns one request.
func (s *approvalStore) Get(ctx context.Context, id string) (approval.Request, error) {
	return get(ctx, s.r, id)
}

func get(ctx context.Context, q querier, id string) (approval.Request, error) {
	var body []byte
	err := q.QueryRowContext(ctx, `SELECT body FROM approval_requests WHERE id=?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return approval.Request{}, errs.Errorf(errs.NotFound, "no approval request %q", id)
	}
	if err != nil {
		return approval.Request{}, err
	}
	return decode[approval.Request](body)
}

// Pending lists pending requests, oldest first.
func (s *approvalStore) Pending(ctx context.Context, limit int) ([]approval.Request, error) {
	if limit <= 0 {
		limit = -1
	}
	return many[approval.Request](ctx, s.r, `SELECT body FROM approval_requests WHERE status='pending' ORDER BY created, rowid`+limitTo(limit))
}

// PendingSummaries lists pending requests without their plans, oldest first.
func (s *approvalStore) PendingSummaries(ctx context.Context) ([]approval.Summary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, title, agent, session_id, plan_type, plan_size, options, default_outcome, created, deadline, seq,
		coalesce(json_extract(CAST(body AS TEXT), '$.then'), '')
		FROM approval_requests WHERE status='pending' ORDER BY created, rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []approval.Summary
	for rows.Next() {
		var m approval.Summary
		var opts, def string
		var created, deadline int64
		if err := rows.Scan(&m.ID, &m.Title, &m.Agent, &m.SessionID, &m.PlanType, &m.PlanSize, &opts, &def, &created, &deadline, &m.Seq, &m.Then); err != nil {
			return nil, err
		}
		for _, o := range strings.Split(opts, ",") {
			m.Options = append(m.Options, approval.Action(o))
		}
		m.Default, m.Created, m.Deadline = approval.Action(def), time.Unix(0, created), time.Unix(0, deadline)
		out = append(out, m)
	}
	return out, rows.Err()
}

func joinOptions(as []approval.Action) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ",")
}

// Elsewhere lists the requests the agents' own dialogs have, oldest first.
func (s *approvalStore) Elsewhere(ctx context.Context) ([]approval.Request, error) {
	return many[approval.Request](ctx, s.r, `SELECT body FROM approval_requests WHERE status='elsewhere' ORDER BY created, rowid`)
}

// Decided lists decided requests, most recently decided first.
func (s *approvalStore) Decided(ctx context.Context, limit int) ([]approval.Request, error) {
	return many[approval.Request](ctx, s.r, `SELECT body FROM approval_requests WHERE decided IS NOT NULL ORDER BY decided DESC, rowid DESC`+limitTo(limit))
}

// CountPending counts pending requests.
func (s *approvalStore) CountPending(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM approval_requests WHERE status='pending'`).Scan(&n)
	return n, err
}

// Due lists pending requests whose deadline has come.
func (s *approvalStore) Due(ctx context.Context, now time.Time, limit int) ([]approval.Request, error) {
	return many[approval.Request](ctx, s.r, `SELECT body FROM approval_requests WHERE status='pending' AND deadline <= ? ORDER BY deadline`+limitTo(limit), now.UnixNano())
}

// LatestInSession is the session's newest request created at or before t.
func (s *approvalStore) LatestInSession(ctx context.Context, sessionID string, t time.Time) (approval.Request, bool, error) {
	list, err := many[approval.Request](ctx, s.r, `SELECT body FROM approval_requests WHERE session_id = ? AND created <= ?
		ORDER BY created DESC, rowid DESC LIMIT 1`, sessionID, t.UnixNano())
	if err != nil || len(list) == 0 {
		return approval.Request{}, false, err
	}
	return list[0], true, nil
}

// NextDeadline is the earliest pending deadline.
func (s *approvalStore) NextDeadline(ctx context.Context) (time.Time, bool, error) {
	var d sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT MIN(deadline) FROM approval_requests WHERE status='pending'`).Scan(&d); err != nil || !d.Valid {
		return time.Time{}, false, err
	}
	return time.Unix(0, d.Int64), true, nil
}

// PutRule stores a rule and its audit event.
func (s *approvalStore) PutRule(ctx context.Context, r approval.Rule, ev approval.AuditEvent) error {
	var revoked any
	if !r.Active() {
		revoked = r.Revoked.UnixNano()
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO approval_rules(id, created, revoked, seq, body) VALUES(?,?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET revoked=excluded.revoked, seq=excluded.seq, body=excluded.body`,
			r.ID, r.Created.UnixNano(), revoked, r.Seq, mustJSON(r)); err != nil {
			return err
		}
		return s.audit(ctx, tx, []approval.AuditEvent{ev})
	})
}

// Rule returns one rule.
func (s *approvalStore) Rule(ctx context.Context, id string) (approval.Rule, error) {
	var body []byte
	err := s.r.QueryRowContext(ctx, `SELECT body FROM approval_rules WHERE id=?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return approval.Rule{}, errs.Errorf(errs.NotFound, "no rule %q", id)
	}
	if err != nil {
		return approval.Rule{}, err
	}
	return decode[approval.Rule](body)
}

// Rules lists rules, newest first.
func (s *approvalStore) Rules(ctx context.Context, withRevoked bool) ([]approval.Rule, error) {
	q := `SELECT body FROM approval_rules WHERE revoked IS NULL ORDER BY created DESC`
	if withRevoked {
		q = `SELECT body FROM approval_rules ORDER BY created DESC`
	}
	return many[approval.Rule](ctx, s.r, q)
}

// Audit lists audit events, newest first.
func (s *approvalStore) Audit(ctx context.Context, f approval.AuditFilter) ([]approval.AuditEvent, error) {
	var where []string
	var args []any
	if f.SessionID != "" {
		where, args = append(where, "session_id = ?"), append(args, f.SessionID)
	}
	if f.Agent != "" {
		c, a := agentIn("agent", f.Agent)
		where, args = append(where, c), append(args, a...)
	}
	q := `SELECT id, body FROM approval_audit`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.r.QueryContext(ctx, q+" ORDER BY id DESC"+limitTo(f.Limit), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []approval.AuditEvent
	for rows.Next() {
		var id int64
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, err
		}
		ev, err := decode[approval.AuditEvent](body)
		if err != nil {
			return nil, err
		}
		ev.ID = id
		out = append(out, ev)
	}
	return out, rows.Err()
}

// Seq is the largest change number stored.
func (s *approvalStore) Seq(ctx context.Context) (uint64, error) {
	var n sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT MAX(m) FROM (SELECT MAX(seq) AS m FROM approval_requests UNION ALL SELECT MAX(seq) FROM approval_rules)`).Scan(&n)
	return uint64(n.Int64), err
}

func (s *approvalStore) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.f.note(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.f.note(err)
	}
	return s.f.note(tx.Commit())
}

func (s *approvalStore) audit(ctx context.Context, tx *sql.Tx, events []approval.AuditEvent) error {
	if len(events) == 0 {
		return nil
	}
	st := tx.StmtContext(ctx, s.stmt.audit)
	for _, ev := range events {
		if _, err := st.ExecContext(ctx, ev.At.UnixNano(), ev.RequestID, ev.SessionID, ev.Agent, mustJSON(ev)); err != nil {
			return err
		}
	}
	return nil
}

func decidedAt(r approval.Request) any {
	if r.Decision == nil {
		return nil
	}
	return r.Decision.At.UnixNano()
}

// agentIn is the condition that the agent named in column col is the agent name stands for,
// whichever spelling each was written in (agentid), and its arguments.
func agentIn(col, name string) (string, []any) {
	sp := agentid.Spellings(name)
	args := make([]any, len(sp))
	for i, v := range sp {
		args[i] = v
	}
	return agentid.FoldSQL(col) + " IN (" + strings.TrimSuffix(strings.Repeat("?,", len(sp)), ",") + ")", args
}

package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// approvalStore implements approval.Store.
type approvalStore struct {
	pool *dbPool
	note *notifier
}

var (
	_ approval.Store     = (*approvalStore)(nil)
	_ approval.Sequencer = (*approvalStore)(nil)
)

// NextSeq draws the gate's next change number from the database, so gates on different
// instances never hand out the same one.
func (s *approvalStore) NextSeq(ctx context.Context) (uint64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT nextval('approval_seq')`).Scan(&n)
	return uint64(n), err
}

// tick numbers a write in the approvals stream. The clock's row lock, held until commit, makes
// approval writes of all instances commit in the order of their numbers, so a listener catching
// up from a number misses none (the gate's Seq, drawn before the write, has no such order).
func tick(ctx context.Context, tx pgx.Tx) (int64, error) {
	var n int64
	err := tx.QueryRow(ctx, `UPDATE approvals_clock SET n = n + 1 RETURNING n`).Scan(&n)
	return n, err
}

// approvalsSchema: bodies are the domain values as JSON, with the columns that queries filter
// and sort on, and what the inbox lists, copied out of them: a long inbox is then read without
// decoding a plan. n keeps the order requests were stored in, for ties (SQLite's rowid).
const approvalsSchema = `
CREATE TABLE approval_requests (
	id text COLLATE "C" PRIMARY KEY,
	n bigint GENERATED ALWAYS AS IDENTITY,
	status text NOT NULL,
	created_ns bigint NOT NULL,
	deadline_ns bigint NOT NULL,
	decided_ns bigint,
	seq bigint NOT NULL,
	title text NOT NULL,
	agent text NOT NULL,
	session_id text NOT NULL,
	plan_type text NOT NULL,
	plan_size integer NOT NULL,
	options text[] NOT NULL,
	default_outcome text NOT NULL,
	body json NOT NULL
);
CREATE INDEX approval_requests_pending ON approval_requests(created_ns, n) WHERE status = 'pending';
CREATE INDEX approval_requests_deadline ON approval_requests(deadline_ns) WHERE status = 'pending';
CREATE INDEX approval_requests_decided ON approval_requests(decided_ns) WHERE decided_ns IS NOT NULL;
CREATE TABLE approval_rules (
	id text COLLATE "C" PRIMARY KEY,
	created_ns bigint NOT NULL,
	revoked_ns bigint,
	seq bigint NOT NULL,
	body json NOT NULL
);
CREATE TABLE approval_audit (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at_ns bigint NOT NULL,
	request_id text NOT NULL,
	session_id text NOT NULL,
	agent text NOT NULL,
	body json NOT NULL
);
CREATE INDEX approval_audit_session ON approval_audit(session_id, id);
CREATE INDEX approval_audit_agent ON approval_audit(agent, id);
`

// Create stores r unless its id is taken. When two instances create the same id at once, the
// second INSERT waits for the first to commit and then does nothing.
func (s *approvalStore) Create(ctx context.Context, r approval.Request, events []approval.AuditEvent) (approval.Request, bool, error) {
	var stored approval.Request
	created := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		sum := r.Summary()
		opts := make([]string, len(sum.Options))
		for i, o := range sum.Options {
			opts[i] = string(o)
		}
		n, err := tick(ctx, tx)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO approval_requests(id, status, created_ns, deadline_ns, decided_ns, seq,
			title, agent, session_id, plan_type, plan_size, options, default_outcome, body, changed)
			VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) ON CONFLICT(id) DO NOTHING`,
			r.ID, string(r.Status), r.Created.UnixNano(), r.Deadline.UnixNano(), decidedAt(r), int64(r.Seq),
			sum.Title, sum.Agent, sum.SessionID, sum.PlanType, sum.PlanSize, opts, string(sum.Default), mustJSON(r), n)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			stored, err = get(ctx, tx, r.ID)
			return err
		}
		stored, created = r, true
		if err := audit(ctx, tx, events); err != nil {
			return err
		}
		return s.note.send(ctx, tx, streamApprovals, uint64(n), Note{Kind: NoteApproval, ID: r.ID})
	})
	return stored, created, err
}

// Decide stores r if the stored request is still pending, or Elsewhere when r settles it.
// Under READ COMMITTED a concurrent Decide on another connection waits for this row, then
// re-reads it and finds it decided.
func (s *approvalStore) Decide(ctx context.Context, r approval.Request, events []approval.AuditEvent) (bool, error) {
	ok := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		n, err := tick(ctx, tx)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE approval_requests SET status=$1, decided_ns=$2, seq=$3, body=$4, changed=$6
			WHERE id=$5 AND (status='pending' OR status='elsewhere' AND $7)`,
			string(r.Status), decidedAt(r), int64(r.Seq), mustJSON(r), r.ID, n, r.Settles())
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		ok = true
		if err := audit(ctx, tx, events); err != nil {
			return err
		}
		return s.note.send(ctx, tx, streamApprovals, uint64(n), Note{Kind: NoteApproval, ID: r.ID})
	})
	return ok && err == nil, err
}

// Get returns one request.
func (s *approvalStore) Get(ctx context.Context, id string) (approval.Request, error) {
	return get(ctx, s.pool, id)
}

func get(ctx context.Context, q querier, id string) (approval.Request, error) {
	return one[approval.Request](ctx, q, errs.Errorf(errs.NotFound, "no approval request %q", id),
		`SELECT body FROM approval_requests WHERE id=$1`, id)
}

// Pending lists pending requests, oldest first.
func (s *approvalStore) Pending(ctx context.Context, n int) ([]approval.Request, error) {
	if n <= 0 {
		n = -1
	}
	return many[approval.Request](ctx, s.pool, `SELECT body FROM approval_requests WHERE status='pending' ORDER BY created_ns, n LIMIT $1`, limit(n))
}

// PendingSummaries lists pending requests without their plans, oldest first.
func (s *approvalStore) PendingSummaries(ctx context.Context) ([]approval.Summary, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, title, agent, session_id, plan_type, plan_size, options, default_outcome, created_ns, deadline_ns, seq,
		coalesce(body->>'then', '')
		FROM approval_requests WHERE status='pending' ORDER BY created_ns, n`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []approval.Summary
	for rows.Next() {
		var m approval.Summary
		var opts []string
		var def string
		var created, deadline, seq int64
		if err := rows.Scan(&m.ID, &m.Title, &m.Agent, &m.SessionID, &m.PlanType, &m.PlanSize, &opts, &def, &created, &deadline, &seq, &m.Then); err != nil {
			return nil, err
		}
		for _, o := range opts {
			m.Options = append(m.Options, approval.Action(o))
		}
		m.Default, m.Created, m.Deadline, m.Seq = approval.Action(def), time.Unix(0, created), time.Unix(0, deadline), uint64(seq)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Elsewhere lists the requests the agents' own dialogs have, oldest first.
func (s *approvalStore) Elsewhere(ctx context.Context) ([]approval.Request, error) {
	return many[approval.Request](ctx, s.pool, `SELECT body FROM approval_requests WHERE status='elsewhere' ORDER BY created_ns, n`)
}

// Decided lists decided requests, most recently decided first.
func (s *approvalStore) Decided(ctx context.Context, n int) ([]approval.Request, error) {
	return many[approval.Request](ctx, s.pool, `SELECT body FROM approval_requests WHERE decided_ns IS NOT NULL ORDER BY decided_ns DESC, n DESC LIMIT $1`, limit(n))
}

// CountPending counts pending requests.
func (s *approvalStore) CountPending(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT COUNT(*) FROM approval_requests WHERE status='pending'`).Scan(&n)
	return n, err
}

// Due lists pending requests whose deadline has come.
func (s *approvalStore) Due(ctx context.Context, now time.Time, n int) ([]approval.Request, error) {
	return many[approval.Request](ctx, s.pool, `SELECT body FROM approval_requests WHERE status='pending' AND deadline_ns <= $1
		ORDER BY deadline_ns, n LIMIT $2`, now.UnixNano(), limit(n))
}

// LatestInSession is the session's newest request created at or before t.
func (s *approvalStore) LatestInSession(ctx context.Context, sessionID string, t time.Time) (approval.Request, bool, error) {
	list, err := many[approval.Request](ctx, s.pool, `SELECT body FROM approval_requests WHERE session_id = $1 AND created_ns <= $2
		ORDER BY created_ns DESC, n DESC LIMIT 1`, sessionID, t.UnixNano())
	if err != nil || len(list) == 0 {
		return approval.Request{}, false, err
	}
	return list[0], true, nil
}

// NextDeadline is the earliest pending deadline.
func (s *approvalStore) NextDeadline(ctx context.Context) (time.Time, bool, error) {
	var d *int64
	if err := s.pool.QueryRow(ctx, `SELECT MIN(deadline_ns) FROM approval_requests WHERE status='pending'`).Scan(&d); err != nil || d == nil {
		return time.Time{}, false, err
	}
	return time.Unix(0, *d), true, nil
}

// PutRule stores a rule and its audit event.
func (s *approvalStore) PutRule(ctx context.Context, r approval.Rule, ev approval.AuditEvent) error {
	var revoked *int64
	if !r.Active() {
		ns := r.Revoked.UnixNano()
		revoked = &ns
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		n, err := tick(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO approval_rules(id, created_ns, revoked_ns, seq, body, changed) VALUES($1,$2,$3,$4,$5,$6)
			ON CONFLICT(id) DO UPDATE SET revoked_ns=excluded.revoked_ns, seq=excluded.seq, body=excluded.body, changed=excluded.changed`,
			r.ID, r.Created.UnixNano(), revoked, int64(r.Seq), mustJSON(r), n); err != nil {
			return err
		}
		if err := audit(ctx, tx, []approval.AuditEvent{ev}); err != nil {
			return err
		}
		return s.note.send(ctx, tx, streamApprovals, uint64(n), Note{Kind: NoteRules, ID: r.ID})
	})
}

// Rule returns one rule.
func (s *approvalStore) Rule(ctx context.Context, id string) (approval.Rule, error) {
	return one[approval.Rule](ctx, s.pool, errs.Errorf(errs.NotFound, "no rule %q", id), `SELECT body FROM approval_rules WHERE id=$1`, id)
}

// Rules lists rules, newest first.
func (s *approvalStore) Rules(ctx context.Context, withRevoked bool) ([]approval.Rule, error) {
	q := `SELECT body FROM approval_rules WHERE revoked_ns IS NULL ORDER BY created_ns DESC, id`
	if withRevoked {
		q = `SELECT body FROM approval_rules ORDER BY created_ns DESC, id`
	}
	return many[approval.Rule](ctx, s.pool, q)
}

// Audit lists audit events, newest first.
func (s *approvalStore) Audit(ctx context.Context, f approval.AuditFilter) ([]approval.AuditEvent, error) {
	var where []string
	var args []any
	if f.SessionID != "" {
		args = append(args, f.SessionID)
		where = append(where, fmt.Sprintf("session_id = $%d", len(args)))
	}
	if f.Agent != "" {
		args = append(args, agentid.Spellings(f.Agent))
		where = append(where, fmt.Sprintf("%s = ANY($%d)", agentid.FoldSQL("agent"), len(args)))
	}
	q := `SELECT id, body FROM approval_audit`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, limit(f.Limit))
	rows, err := s.pool.Query(ctx, q+fmt.Sprintf(" ORDER BY id DESC LIMIT $%d", len(args)), args...)
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
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT GREATEST(COALESCE((SELECT MAX(seq) FROM approval_requests), 0),
		COALESCE((SELECT MAX(seq) FROM approval_rules), 0))`).Scan(&n)
	return uint64(n), err
}

func audit(ctx context.Context, tx pgx.Tx, events []approval.AuditEvent) error {
	for _, ev := range events {
		if _, err := tx.Exec(ctx, `INSERT INTO approval_audit(at_ns, request_id, session_id, agent, body) VALUES($1,$2,$3,$4,$5)`,
			ev.At.UnixNano(), ev.RequestID, ev.SessionID, ev.Agent, mustJSON(ev)); err != nil {
			return err
		}
	}
	return nil
}

func decidedAt(r approval.Request) *int64 {
	if r.Decision == nil {
		return nil
	}
	ns := r.Decision.At.UnixNano()
	return &ns
}

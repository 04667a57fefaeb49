package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/paging"
)

var _ approval.Lister = (*approvalStore)(nil)

// PendingPage lists pending requests, oldest first.
func (s *approvalStore) PendingPage(ctx context.Context, r paging.Request) ([]approval.Request, paging.Cursor, error) {
	q, args := `SELECT body FROM approval_requests WHERE status = 'pending'`, []any{}
	if !r.After.IsZero() {
		q, args = q+` AND (created_ns, id) > ($1, $2)`, append(args, r.After.Key, r.After.ID)
	}
	args = append(args, r.Fetch())
	list, err := many[approval.Request](ctx, s.pool, q+fmt.Sprintf(` ORDER BY created_ns, id LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	list, next := paging.Trim(r, list, approval.PendingCursor)
	return list, next, nil
}

// DecidedPage lists decided requests, most recently decided first.
func (s *approvalStore) DecidedPage(ctx context.Context, r paging.Request) ([]approval.Request, paging.Cursor, error) {
	q, args := `SELECT body FROM approval_requests WHERE decided_ns IS NOT NULL`, []any{}
	if !r.After.IsZero() {
		q, args = q+` AND (decided_ns, id) < ($1, $2)`, append(args, r.After.Key, r.After.ID)
	}
	args = append(args, r.Fetch())
	list, err := many[approval.Request](ctx, s.pool, q+fmt.Sprintf(` ORDER BY decided_ns DESC, id DESC LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	list, next := paging.Trim(r, list, approval.DecidedCursor)
	return list, next, nil
}

// AuditPage lists audit events, newest first.
func (s *approvalStore) AuditPage(ctx context.Context, f approval.AuditFilter, r paging.Request) ([]approval.AuditEvent, paging.Cursor, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.SessionID != "" {
		add("session_id = $%d", f.SessionID)
	}
	if f.Agent != "" {
		add(agentid.FoldSQL("agent")+" = ANY($%d)", agentid.Spellings(f.Agent))
	}
	if !r.After.IsZero() {
		add("id < $%d", r.After.Key)
	}
	q := `SELECT id, body FROM approval_audit`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, r.Fetch())
	rows, err := s.pool.Query(ctx, q+fmt.Sprintf(" ORDER BY id DESC LIMIT $%d", len(args)), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	defer rows.Close()
	out := []approval.AuditEvent{}
	for rows.Next() {
		var id int64
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, paging.Cursor{}, err
		}
		ev, err := decode[approval.AuditEvent](body)
		if err != nil {
			return nil, paging.Cursor{}, err
		}
		ev.ID = id
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, paging.Cursor{}, err
	}
	out, next := paging.Trim(r, out, approval.AuditCursor)
	return out, next, nil
}

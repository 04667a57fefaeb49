package sqlite

import (
	"context"
	"strings"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/paging"
)

var _ approval.Lister = (*approvalStore)(nil)

// PendingPage lists pending requests, oldest first, by the pending index.
func (s *approvalStore) PendingPage(ctx context.Context, r paging.Request) ([]approval.Request, paging.Cursor, error) {
	q, args := `SELECT body FROM approval_requests WHERE status = 'pending'`, []any{}
	if !r.After.IsZero() {
		q, args = q+` AND (created, id) > (?, ?)`, append(args, r.After.Key, r.After.ID)
	}
	list, err := many[approval.Request](ctx, s.r, q+` ORDER BY created, id`+limitTo(r.Fetch()), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	list, next := paging.Trim(r, list, approval.PendingCursor)
	return list, next, nil
}

// DecidedPage lists decided requests, most recently decided first, by the decided index.
func (s *approvalStore) DecidedPage(ctx context.Context, r paging.Request) ([]approval.Request, paging.Cursor, error) {
	q, args := `SELECT body FROM approval_requests WHERE decided IS NOT NULL`, []any{}
	if !r.After.IsZero() {
		q, args = q+` AND (decided, id) < (?, ?)`, append(args, r.After.Key, r.After.ID)
	}
	list, err := many[approval.Request](ctx, s.r, q+` ORDER BY decided DESC, id DESC`+limitTo(r.Fetch()), args...)
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
	if f.SessionID != "" {
		where, args = append(where, "session_id = ?"), append(args, f.SessionID)
	}
	if f.Agent != "" {
		c, a := agentIn("agent", f.Agent)
		where, args = append(where, c), append(args, a...)
	}
	if !r.After.IsZero() {
		where, args = append(where, "id < ?"), append(args, r.After.Key)
	}
	q := `SELECT id, body FROM approval_audit`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.r.QueryContext(ctx, q+" ORDER BY id DESC"+limitTo(r.Fetch()), args...)
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

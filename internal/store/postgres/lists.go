package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
)

var _ plans.Lister = (*plansStore)(nil)

// SessionsPage lists sessions, most recently seen first, one page at a time.
func (s *plansStore) SessionsPage(ctx context.Context, r paging.Request) ([]plans.Session, paging.Cursor, error) {
	q, args := `SELECT body FROM sessions`, []any{}
	if !r.After.IsZero() {
		q, args = q+` WHERE (last_seen_ns, id) < ($1, $2)`, append(args, r.After.Key, r.After.ID)
	}
	args = append(args, r.Fetch())
	list, err := many[plans.Session](ctx, s.pool, q+fmt.Sprintf(` ORDER BY last_seen_ns DESC, id DESC LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	list, next := paging.Trim(r, list, plans.LastSeenCursor)
	return list, next, nil
}

// ActivePage lists one page of the active sessions with their live plans, and the Seq of the
// same snapshot.
func (s *plansStore) ActivePage(ctx context.Context, now time.Time, idle time.Duration, r paging.Request) ([]plans.SessionPlans, paging.Cursor, uint64, error) {
	var (
		out  = []plans.SessionPlans{}
		next paging.Cursor
		seq  uint64
	)
	err := readSnapshot(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if seq, err = s.clock(ctx, tx); err != nil {
			return err
		}
		q := `SELECT body FROM sessions s WHERE NOT s.ended AND s.last_seen_ns > $1
			AND EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND NOT p.removed)`
		args := []any{now.Add(-idle).UnixNano()}
		if !r.After.IsZero() {
			q, args = q+` AND (s.last_seen_ns, s.id) < ($2, $3)`, append(args, r.After.Key, r.After.ID)
		}
		args = append(args, r.Fetch())
		list, err := many[plans.Session](ctx, tx, q+fmt.Sprintf(` ORDER BY s.last_seen_ns DESC, s.id DESC LIMIT $%d`, len(args)), args...)
		if err != nil {
			return err
		}
		list, next = paging.Trim(r, list, plans.LastSeenCursor)
		if len(list) == 0 {
			return nil
		}
		out = make([]plans.SessionPlans, len(list))
		at := make(map[string]int, len(list))
		ids := make([]string, len(list))
		for i, sess := range list {
			out[i].Session, at[sess.ID], ids[i] = sess, i, sess.ID
		}
		ps, err := many[plans.Plan](ctx, tx, `SELECT body FROM plans WHERE NOT removed AND session_id = ANY($1)
			ORDER BY updated_ns DESC, plan_id`, ids)
		for _, p := range ps {
			out[at[p.SessionID]].Add(p)
		}
		return err
	})
	if err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	return out, next, seq, nil
}

// ToolCallsPage lists a session's tool calls in the order they started, by tool_calls_created.
func (s *plansStore) ToolCallsPage(ctx context.Context, sessionID string, r paging.Request) ([]plans.ToolCall, paging.Cursor, error) {
	q, args := `SELECT body FROM tool_calls WHERE session_id = $1`, []any{sessionID}
	if !r.After.IsZero() {
		q, args = q+` AND (created_ns, id) > ($2, $3)`, append(args, r.After.Key, r.After.ID)
	}
	args = append(args, r.Fetch())
	list, err := many[plans.ToolCall](ctx, s.pool, q+fmt.Sprintf(` ORDER BY created_ns, id LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	list, next := paging.Trim(r, list, plans.ToolCallCursor)
	return list, next, nil
}

// RevisionsPage lists a plan's revisions, newest first, from the rows' own columns: nothing is
// decoded, deltas or not.
func (s *plansStore) RevisionsPage(ctx context.Context, sessionID, planID string, r paging.Request) ([]plans.RevisionInfo, paging.Cursor, int, error) {
	var newest *int64
	if err := s.pool.QueryRow(ctx, `SELECT MAX(revision) FROM plan_revisions WHERE session_id = $1 AND plan_id = $2`,
		sessionID, planID).Scan(&newest); err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	if newest == nil {
		return []plans.RevisionInfo{}, paging.Cursor{}, 0, nil
	}
	after := *newest + 1
	if !r.After.IsZero() {
		after = r.After.Key
	}
	rows, err := s.pool.Query(ctx, `SELECT revision, at FROM plan_revisions
		WHERE session_id = $1 AND plan_id = $2 AND revision < $3 ORDER BY revision DESC LIMIT $4`, sessionID, planID, after, r.Fetch())
	if err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (plans.RevisionInfo, error) {
		var ri plans.RevisionInfo
		err := row.Scan(&ri.Revision, &ri.At)
		return ri, err
	})
	if err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	list, next := paging.Trim(r, list, plans.RevisionCursor)
	return list, next, int(*newest), nil
}

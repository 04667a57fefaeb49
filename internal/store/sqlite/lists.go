package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
)

var _ plans.Lister = (*plansStore)(nil)

// SessionsPage lists sessions, most recently seen first, one page at a time.
func (s *plansStore) SessionsPage(ctx context.Context, r paging.Request) ([]plans.Session, paging.Cursor, error) {
	q, args := `SELECT body FROM sessions`, []any{}
	if !r.After.IsZero() {
		q, args = q+` WHERE (last_seen, id) < (?, ?)`, append(args, r.After.Key, r.After.ID)
	}
	list, err := many[plans.Session](ctx, s.r, q+` ORDER BY last_seen DESC, id DESC`+limitTo(r.Fetch()), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	list, next := paging.Trim(r, list, plans.LastSeenCursor)
	return list, next, nil
}

// ActivePage lists one page of the active sessions with their live plans: the sessions first,
// by the last_seen index, then the plans of just those sessions.
func (s *plansStore) ActivePage(ctx context.Context, now time.Time, idle time.Duration, r paging.Request) ([]plans.SessionPlans, paging.Cursor, uint64, error) {
	seq := s.seq.Load()
	q := `SELECT body FROM sessions s WHERE s.ended = 0 AND s.last_seen > ?
		AND EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND p.removed = 0)`
	args := []any{now.Add(-idle).UnixNano()}
	if !r.After.IsZero() {
		q, args = q+` AND (s.last_seen, s.id) < (?, ?)`, append(args, r.After.Key, r.After.ID)
	}
	list, err := many[plans.Session](ctx, s.r, q+` ORDER BY s.last_seen DESC, s.id DESC`+limitTo(r.Fetch()), args...)
	if err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	list, next := paging.Trim(r, list, plans.LastSeenCursor)
	if len(list) == 0 {
		return []plans.SessionPlans{}, next, seq, nil
	}
	out := make([]plans.SessionPlans, len(list))
	at := make(map[string]int, len(list))
	ids := make([]any, len(list))
	for i, sess := range list {
		out[i].Session, at[sess.ID], ids[i] = sess, i, sess.ID
	}
	ps, err := many[plans.Plan](ctx, s.r, `SELECT body FROM plans WHERE removed = 0 AND session_id IN (?`+
		strings.Repeat(",?", len(ids)-1)+`) ORDER BY updated DESC, plan_id`, ids...)
	if err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	for _, p := range ps {
		out[at[p.SessionID]].Add(p)
	}
	return out, next, seq, nil
}

// ToolCallsPage lists a session's tool calls in the order they started, by the
// tool_calls_created index.
func (s *plansStore) ToolCallsPage(ctx context.Context, sessionID string, r paging.Request) ([]plans.ToolCall, paging.Cursor, error) {
	q, args := `SELECT body FROM tool_calls WHERE session_id = ?`, []any{sessionID}
	if !r.After.IsZero() {
		q, args = q+` AND (created, id) > (?, ?)`, append(args, r.After.Key, r.After.ID)
	}
	list, err := many[plans.ToolCall](ctx, s.r, q+` ORDER BY created, id`+limitTo(r.Fetch()), args...)
	if err != nil {
		return nil, paging.Cursor{}, err
	}
	list, next := paging.Trim(r, list, plans.ToolCallCursor)
	return list, next, nil
}

// RevisionsPage lists a plan's revisions, newest first, from the rows' own columns: nothing is
// decoded, deltas or not.
func (s *plansStore) RevisionsPage(ctx context.Context, sessionID, planID string, r paging.Request) ([]plans.RevisionInfo, paging.Cursor, int, error) {
	var newest sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT MAX(revision) FROM plan_revisions WHERE session_id = ? AND plan_id = ?`,
		sessionID, planID).Scan(&newest); err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	after := int64(newest.Int64) + 1
	if !r.After.IsZero() {
		after = r.After.Key
	}
	rows, err := s.r.QueryContext(ctx, `SELECT revision, at FROM plan_revisions WHERE session_id = ? AND plan_id = ? AND revision < ?
		ORDER BY revision DESC`+limitTo(r.Fetch()), sessionID, planID, after)
	if err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	defer rows.Close()
	list := []plans.RevisionInfo{}
	for rows.Next() {
		var ri plans.RevisionInfo
		var at int64
		if err := rows.Scan(&ri.Revision, &at); err != nil {
			return nil, paging.Cursor{}, 0, err
		}
		ri.At = time.UnixMilli(at)
		list = append(list, ri)
	}
	if err := rows.Err(); err != nil {
		return nil, paging.Cursor{}, 0, err
	}
	list, next := paging.Trim(r, list, plans.RevisionCursor)
	return list, next, int(newest.Int64), nil
}

// RevisionAt rebuilds one revision from the keyframe at or before it: at most KeyframeEvery
// rows are read and decoded, however long the plan's history. A plan's newest revision, which
// the history page shows by default, usually comes from the cache of tips, rows unread.
func (s *plansStore) RevisionAt(ctx context.Context, sessionID, planID string, revision int) (plans.Revision, error) {
	k := plans.PlanKey{SessionID: sessionID, PlanID: planID}
	f, ok, err := s.cache.Get(k, revision)
	if err != nil {
		return plans.Revision{}, err
	}
	if !ok {
		if f, err = rebuild(ctx, s.r, k, revision); err != nil {
			return plans.Revision{}, err
		}
	}
	if f == nil {
		return plans.Revision{}, fmt.Errorf("%w: plan %q has no revision %d", plans.ErrNotFound, planID, revision)
	}
	return f.Revision()
}

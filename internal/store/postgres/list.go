package postgres

import (
	"context"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/plans"
)

// firstSeenColumn orders sessions by when they began, a place each keeps for life: the column
// is new, so sessions stored before it take their start from the body.
const firstSeenColumn = `
ALTER TABLE sessions ADD COLUMN first_seen_ns bigint NOT NULL DEFAULT 0;
UPDATE sessions SET first_seen_ns = (extract(epoch FROM (body->>'firstSeen')::timestamptz) * 1000000000)::bigint
	WHERE body->>'firstSeen' >= '1970';
CREATE INDEX sessions_first_seen ON sessions(first_seen_ns DESC, id DESC);
`

// Conditions on a session row s and its plans p.
const (
	pgHasPlan    = `EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND NOT p.removed)`
	pgEntries    = `EXISTS (SELECT 1 FROM plans p, json_array_elements(p.body->'entries') e WHERE p.session_id = s.id AND NOT p.removed`
	pgHasEntries = pgEntries + `)`
	pgUnfinished = pgEntries + ` AND e->>'status' IN ('pending', 'in_progress'))`
)

// ListSessions is one page of sessions with plans, newest first by start; see plans.Store.
func (s *plansStore) ListSessions(ctx context.Context, f plans.SessionFilter, after plans.SessionCursor, limit int) ([]plans.SessionPlans, bool, error) {
	if f.IDs != nil && len(f.IDs) == 0 || limit <= 0 {
		return nil, false, nil
	}
	where := []string{pgHasPlan}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if !after.IsZero() {
		where = append(where, `(s.first_seen_ns, s.id) < (`+arg(after.NS())+`, `+arg(after.ID)+`)`)
	}
	if f.Agent != "" {
		a := arg(f.Agent)
		where = append(where, `(s.body->>'agent' = `+a+` OR s.body->>'agentTitle' = `+a+`)`)
	}
	switch f.Host {
	case "":
	case plans.LocalHost:
		where = append(where, `coalesce(s.body->>'host', '') = ''`)
	default:
		where = append(where, `s.body->>'host' = `+arg(f.Host))
	}
	if dir := strings.TrimRight(f.Dir, "/"); f.Dir != "" {
		where = append(where, `(s.body->>'cwd' = `+arg(dir)+` OR s.body->>'cwd' LIKE `+arg(plans.DirPattern(dir))+` ESCAPE '\')`)
	}
	if f.Text != "" {
		p := arg(plans.LikePattern(f.Text))
		where = append(where, `(lower(coalesce(s.body->>'title', '')) LIKE `+p+` ESCAPE '\'
			OR lower(coalesce(s.body->>'cwd', '')) LIKE `+p+` ESCAPE '\'
			OR lower(coalesce(s.body->>'agentTitle', s.body->>'agent', '')) LIKE `+p+` ESCAPE '\'
			OR EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND NOT p.removed
				AND (lower(coalesce(p.body->>'markdown', '')) LIKE `+p+` ESCAPE '\'
				OR EXISTS (SELECT 1 FROM json_array_elements(p.body->'entries') e WHERE lower(e->>'content') LIKE `+p+` ESCAPE '\'))))`)
	}
	live := func() string {
		return `(NOT s.ended AND s.last_seen_ns > ` + arg(f.Now.Add(-f.Idle).UnixNano()) + `)`
	}
	switch f.State {
	case plans.StateGone:
		where = append(where, `NOT `+live())
	case plans.StateDone:
		where = append(where, live()+` AND `+pgHasEntries+` AND NOT `+pgUnfinished)
	case plans.StateActive:
		where = append(where, live()+` AND (`+pgUnfinished+` OR NOT `+pgHasEntries+`)`)
	}
	if f.IDs != nil {
		where = append(where, `s.id = ANY(`+arg(f.IDs)+`)`)
	}
	q := `SELECT s.body FROM sessions s WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY s.first_seen_ns DESC, s.id DESC LIMIT ` + arg(limit+1)
	sessions, err := many[plans.Session](ctx, s.pool, q, args...)
	if err != nil {
		return nil, false, err
	}
	more := len(sessions) > limit
	sessions = sessions[:min(len(sessions), limit)]
	if len(sessions) == 0 {
		return nil, more, nil
	}
	ids := make([]string, len(sessions))
	at := make(map[string]int, len(sessions))
	out := make([]plans.SessionPlans, len(sessions))
	for i, sess := range sessions {
		ids[i], at[sess.ID], out[i].Session = sess.ID, i, sess
	}
	ps, err := many[plans.Plan](ctx, s.pool, `SELECT body FROM plans WHERE NOT removed AND session_id = ANY($1)
		ORDER BY updated_ns DESC, plan_id`, ids)
	if err != nil {
		return nil, false, err
	}
	for _, p := range ps {
		i := at[p.SessionID]
		out[i].Plans = append(out[i].Plans, p)
	}
	return out, more, nil
}

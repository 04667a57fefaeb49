package postgres

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/plandash/plandash/internal/agentid"
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

// planTally keeps, on each plan's row, how many entries it has and how many are open (pending
// or in progress), so a session's state and the plans the overview leaves out are counted
// without decoding bodies. Plans stored before the columns are counted once, here.
const planTally = `
ALTER TABLE plans ADD COLUMN entry_count integer NOT NULL DEFAULT 0, ADD COLUMN open_count integer NOT NULL DEFAULT 0;
UPDATE plans SET
	entry_count = (SELECT count(*) FROM json_array_elements(body->'entries') e),
	open_count = (SELECT count(*) FROM json_array_elements(body->'entries') e WHERE e->>'status' IN ('pending', 'in_progress'))
	WHERE json_typeof(body->'entries') = 'array';
`

// Conditions on a session row s and its plans p.
const (
	pgHasPlan    = `EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND NOT p.removed)`
	pgHasEntries = `EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND NOT p.removed AND p.entry_count > 0)`
	pgUnfinished = `EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND NOT p.removed AND p.open_count > 0)`
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
		a := arg(agentid.Spellings(f.Agent))
		where = append(where, `(`+agentid.FoldSQL(`s.body->>'agent'`)+` = ANY(`+a+`) OR `+agentid.FoldSQL(`s.body->>'agentTitle'`)+` = ANY(`+a+`))`)
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
	per := f.PlansPer
	if per <= 0 {
		per = math.MaxInt32
	}
	// Each session's first per plans, with the tally of all its plans on every row.
	rows, err := s.pool.Query(ctx, `SELECT session_id, n, entries, open, body FROM (
		SELECT session_id, updated_ns, plan_id, body,
			row_number() OVER (PARTITION BY session_id ORDER BY updated_ns DESC, plan_id) AS rn,
			count(*) OVER whole AS n, sum(entry_count) OVER whole AS entries, sum(open_count) OVER whole AS open
		FROM plans WHERE NOT removed AND session_id = ANY($1)
		WINDOW whole AS (PARTITION BY session_id)) numbered
		WHERE rn <= $2 ORDER BY updated_ns DESC, plan_id`, ids, per)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			sid  string
			t    plans.Tally
			body []byte
		)
		if err := rows.Scan(&sid, &t.Plans, &t.Entries, &t.Open, &body); err != nil {
			return nil, false, err
		}
		p, err := decode[plans.Plan](body)
		if err != nil {
			return nil, false, err
		}
		i := at[sid]
		out[i].Tally = t
		out[i].Plans = append(out[i].Plans, p)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return out, more, nil
}

// Outline is one session with the tally of its plans and the newest n of them named, the ones
// whole picks decoded; see plans.Store.
func (s *plansStore) Outline(ctx context.Context, id string, n int, whole func(plans.PlanRef) bool) (plans.Outline, error) {
	var (
		out  plans.Outline
		body []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT s.body, t.n, t.entries, t.open FROM sessions s,
		LATERAL (SELECT count(*) AS n, coalesce(sum(entry_count), 0) AS entries, coalesce(sum(open_count), 0) AS open
			FROM plans WHERE session_id = s.id AND NOT removed) t
		WHERE s.id = $1`, id).Scan(&body, &out.Tally.Plans, &out.Tally.Entries, &out.Tally.Open)
	if errors.Is(err, pgx.ErrNoRows) {
		return plans.Outline{}, plans.ErrNotFound
	}
	if err != nil {
		return plans.Outline{}, err
	}
	if out.Session, err = decode[plans.Session](body); err != nil {
		return plans.Outline{}, err
	}
	rows, err := s.pool.Query(ctx, `SELECT plan_id, coalesce(body->>'kind', ''), body FROM plans
		WHERE session_id = $1 AND NOT removed ORDER BY updated_ns DESC, plan_id LIMIT $2`, id, max(n, 0))
	if err != nil {
		return plans.Outline{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			ref plans.PlanRef
			b   []byte
		)
		if err := rows.Scan(&ref.ID, &ref.Kind, &b); err != nil {
			return plans.Outline{}, err
		}
		out.Newest = append(out.Newest, ref)
		if whole == nil || !whole(ref) {
			continue
		}
		p, err := decode[plans.Plan](b)
		if err != nil {
			return plans.Outline{}, err
		}
		out.Plans = append(out.Plans, p)
	}
	return out, rows.Err()
}

// RecentPlan is a plan if it is among its session's n newest; see plans.Store.
func (s *plansStore) RecentPlan(ctx context.Context, sessionID, planID string, n int) (plans.Plan, bool, error) {
	var (
		body  []byte
		newer int
	)
	err := s.pool.QueryRow(ctx, `SELECT p.body, (SELECT count(*) FROM plans q WHERE q.session_id = p.session_id AND NOT q.removed
			AND (q.updated_ns > p.updated_ns OR q.updated_ns = p.updated_ns AND q.plan_id < p.plan_id))
		FROM plans p WHERE p.session_id = $1 AND p.plan_id = $2 AND NOT p.removed`, sessionID, planID).Scan(&body, &newer)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && newer >= n {
		return plans.Plan{}, false, nil
	}
	if err != nil {
		return plans.Plan{}, false, err
	}
	p, err := decode[plans.Plan](body)
	return p, err == nil, err
}

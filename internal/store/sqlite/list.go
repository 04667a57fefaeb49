package sqlite

import (
	"context"
	"database/sql"
	"math"
	"strings"

	"github.com/plandash/plandash/internal/plans"
)

// firstSeenColumn orders sessions by when they began, a place each keeps for life: the column
// is new, so sessions stored before it take their start from the body.
const firstSeenColumn = `
ALTER TABLE sessions ADD COLUMN first_seen INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET first_seen = CAST(unixepoch(json_extract(body, '$.firstSeen'), 'subsec') * 1000000000 AS INTEGER)
	WHERE json_extract(body, '$.firstSeen') >= '1970';
CREATE INDEX IF NOT EXISTS sessions_first_seen ON sessions(first_seen DESC, id DESC);
`

// planTally keeps, on each plan's row, how many entries it has and how many are open (pending
// or in progress), so a session's state and the plans the overview leaves out are counted
// without decoding bodies. Plans stored before the columns are counted once, here.
const planTally = `
ALTER TABLE plans ADD COLUMN entry_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plans ADD COLUMN open_count INTEGER NOT NULL DEFAULT 0;
UPDATE plans SET
	entry_count = (SELECT count(*) FROM json_each(body, '$.entries')),
	open_count = (SELECT count(*) FROM json_each(body, '$.entries') e WHERE json_extract(e.value, '$.status') IN ('pending', 'in_progress'));
`

// Conditions on a session row s and its plans p.
const (
	sqlHasPlan    = `EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND p.removed = 0)`
	sqlHasEntries = `EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND p.removed = 0 AND p.entry_count > 0)`
	sqlUnfinished = `EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND p.removed = 0 AND p.open_count > 0)`
	sqlLive       = `(s.ended = 0 AND s.last_seen > ?)`
)

// ListSessions is one page of sessions with plans, newest first by start; see plans.Store.
func (s *plansStore) ListSessions(ctx context.Context, f plans.SessionFilter, after plans.SessionCursor, limit int) ([]plans.SessionPlans, bool, error) {
	if f.IDs != nil && len(f.IDs) == 0 || limit <= 0 {
		return nil, false, nil
	}
	where := []string{sqlHasPlan}
	var args []any
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if !after.IsZero() {
		add(`(s.first_seen, s.id) < (?, ?)`, after.NS(), after.ID)
	}
	if f.Agent != "" {
		byAgent, a := agentIn(`json_extract(s.body, '$.agent')`, f.Agent)
		byTitle, _ := agentIn(`json_extract(s.body, '$.agentTitle')`, f.Agent)
		add(`(`+byAgent+` OR `+byTitle+`)`, append(a, a...)...)
	}
	switch f.Host {
	case "":
	case plans.LocalHost:
		add(`coalesce(json_extract(s.body, '$.host'), '') = ''`)
	default:
		add(`json_extract(s.body, '$.host') = ?`, f.Host)
	}
	if dir := strings.TrimRight(f.Dir, "/"); f.Dir != "" {
		add(`(json_extract(s.body, '$.cwd') = ? OR json_extract(s.body, '$.cwd') LIKE ? ESCAPE '\')`, dir, plans.DirPattern(dir))
	}
	if f.Text != "" {
		pat := plans.LikePattern(f.Text)
		add(`(lower(coalesce(json_extract(s.body, '$.title'), '')) LIKE ? ESCAPE '\'
			OR lower(coalesce(json_extract(s.body, '$.cwd'), '')) LIKE ? ESCAPE '\'
			OR lower(coalesce(json_extract(s.body, '$.agentTitle'), json_extract(s.body, '$.agent'), '')) LIKE ? ESCAPE '\'
			OR EXISTS (SELECT 1 FROM plans p WHERE p.session_id = s.id AND p.removed = 0
				AND (lower(coalesce(json_extract(p.body, '$.markdown'), '')) LIKE ? ESCAPE '\'
				OR EXISTS (SELECT 1 FROM json_each(p.body, '$.entries') e WHERE lower(json_extract(e.value, '$.content')) LIKE ? ESCAPE '\'))))`, pat, pat, pat, pat, pat)
	}
	cutoff := f.Now.Add(-f.Idle).UnixNano()
	switch f.State {
	case plans.StateGone:
		add(`NOT `+sqlLive, cutoff)
	case plans.StateDone:
		add(sqlLive+` AND `+sqlHasEntries+` AND NOT `+sqlUnfinished, cutoff)
	case plans.StateActive:
		add(sqlLive+` AND (`+sqlUnfinished+` OR NOT `+sqlHasEntries+`)`, cutoff)
	}
	if f.IDs != nil {
		add(`s.id IN (`+strings.TrimSuffix(strings.Repeat("?,", len(f.IDs)), ",")+`)`, anys(f.IDs)...)
	}
	q := `SELECT s.body FROM sessions s WHERE ` + strings.Join(where, " AND ") + ` ORDER BY s.first_seen DESC, s.id DESC` + limitTo(limit+1)
	sessions, err := many[plans.Session](ctx, s.r, q, args...)
	if err != nil {
		return nil, false, err
	}
	more := len(sessions) > limit
	sessions = sessions[:min(len(sessions), limit)]
	if len(sessions) == 0 {
		return nil, more, nil
	}
	ids := make([]any, len(sessions))
	at := make(map[string]int, len(sessions))
	out := make([]plans.SessionPlans, len(sessions))
	for i, sess := range sessions {
		ids[i], at[sess.ID], out[i].Session = sess.ID, i, sess
	}
	per := f.PlansPer
	if per <= 0 {
		per = math.MaxInt
	}
	// Every plan of the page's sessions is counted, but only each session's first per are
	// decoded: a row is cheap to read, a body dear to decode. (A window function would pick
	// them in SQL, at five times the cost of the whole read.)
	rows, err := s.r.QueryContext(ctx, `SELECT session_id, entry_count, open_count, body FROM plans
		WHERE removed = 0 AND session_id IN (`+strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+`)
		ORDER BY updated DESC, plan_id`, ids...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			sid           string
			entries, open int
			body          sql.RawBytes
		)
		if err := rows.Scan(&sid, &entries, &open, &body); err != nil {
			return nil, false, err
		}
		g := &out[at[sid]]
		g.Tally.Plans++
		g.Tally.Entries += entries
		g.Tally.Open += open
		if len(g.Plans) == per {
			continue
		}
		p, err := decode[plans.Plan](body)
		if err != nil {
			return nil, false, err
		}
		g.Plans = append(g.Plans, p)
	}
	return out, more, rows.Err()
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

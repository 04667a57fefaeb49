package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"math"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
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

// Outline is one session with the tally of its plans and the newest n of them named, the ones
// whole picks decoded; see plans.Store. It reads on the readers, like the lists: the live
// overview calls it for every change, and must not wait behind the writer's next commit.
func (s *plansStore) Outline(ctx context.Context, id string, n int, whole func(plans.PlanRef) bool) (plans.Outline, error) {
	var (
		out  plans.Outline
		body []byte
	)
	// An aggregate without GROUP BY answers one row, the session's body NULL when there is none.
	err := s.r.QueryRowContext(ctx, `SELECT s.body, count(p.plan_id), coalesce(sum(p.entry_count), 0), coalesce(sum(p.open_count), 0)
		FROM sessions s LEFT JOIN plans p ON p.session_id = s.id AND p.removed = 0 WHERE s.id = ?`, id).
		Scan(&body, &out.Tally.Plans, &out.Tally.Entries, &out.Tally.Open)
	if err != nil {
		return plans.Outline{}, err
	}
	if body == nil {
		return plans.Outline{}, plans.ErrNotFound
	}
	if out.Session, err = decode[plans.Session](body); err != nil {
		return plans.Outline{}, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT plan_id, body FROM plans
		WHERE session_id = ? AND removed = 0 ORDER BY updated DESC, plan_id`+limitTo(max(n, 0)), id)
	if err != nil {
		return plans.Outline{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			planID string
			b      sql.RawBytes
		)
		if err := rows.Scan(&planID, &b); err != nil {
			return plans.Outline{}, err
		}
		ref := plans.PlanRef{ID: planID, Kind: planKind(b)}
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

// planKind is a stored plan's kind, read from the body's members up to it without decoding the
// rest (plans.Plan's kind comes third); "" when the body has none. SQLite's json_extract parses
// the whole body into its binary form first: for a group's eight plans it cost as much as the
// rest of the read.
func planKind(b []byte) plans.Kind {
	d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return ""
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return ""
		}
		if name.String() == "kind" {
			v, err := d.ReadToken()
			if err != nil || v.Kind() != '"' {
				return ""
			}
			return plans.Kind(v.String())
		}
		if d.SkipValue() != nil {
			return ""
		}
	}
	return ""
}

// RecentPlan is a plan if it is among its session's n newest; see plans.Store.
func (s *plansStore) RecentPlan(ctx context.Context, sessionID, planID string, n int) (plans.Plan, bool, error) {
	var (
		body  []byte
		newer int
	)
	err := s.r.QueryRowContext(ctx, `SELECT p.body, (SELECT count(*) FROM plans q WHERE q.session_id = p.session_id AND q.removed = 0
			AND (q.updated > p.updated OR q.updated = p.updated AND q.plan_id < p.plan_id))
		FROM plans p WHERE p.session_id = ? AND p.plan_id = ? AND p.removed = 0`, sessionID, planID).Scan(&body, &newer)
	if errors.Is(err, sql.ErrNoRows) || err == nil && newer >= n {
		return plans.Plan{}, false, nil
	}
	if err != nil {
		return plans.Plan{}, false, err
	}
	p, err := decode[plans.Plan](body)
	return p, err == nil, err
}

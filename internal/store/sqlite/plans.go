package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
)

// plansStore implements plans.Store.
type plansStore struct {
	w   *sql.DB // the DB's writer
	r   *readDB
	f   *faults // the DB's storage faults
	seq atomic.Uint64

	cache delta.Cache // newest revisions, the bases of the next deltas
	cur   current     // sessions and plans as they are in the file (current.go)
	stmt  *writeStmts // the commit's statements (stmts.go)
	raw   rawStmts    // the batches' statements, prepared on the writer's driver connection
}

var _ plans.Store = (*plansStore)(nil)

// plansSchema is the sessions store's tables: each value is its domain JSON, with the columns
// queries filter and sort on copied out of it.
const plansSchema = `
CREATE TABLE IF NOT EXISTS sessions (
	id TEXT PRIMARY KEY,
	body BLOB NOT NULL,
	last_seen INTEGER NOT NULL,
	ended INTEGER NOT NULL DEFAULT 0,
	seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_seq ON sessions(seq);
CREATE INDEX IF NOT EXISTS sessions_last_seen ON sessions(last_seen);
CREATE TABLE IF NOT EXISTS plans (
	session_id TEXT NOT NULL,
	plan_id TEXT NOT NULL,
	removed INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	body BLOB NOT NULL,
	PRIMARY KEY (session_id, plan_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS plan_revisions (
	session_id TEXT NOT NULL,
	plan_id TEXT NOT NULL,
	revision INTEGER NOT NULL,
	body BLOB NOT NULL,
	PRIMARY KEY (session_id, plan_id, revision)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tool_calls (
	session_id TEXT NOT NULL,
	id TEXT NOT NULL,
	created INTEGER NOT NULL,
	body BLOB NOT NULL,
	PRIMARY KEY (session_id, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS activity (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT NOT NULL,
	body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_session ON activity(session_id, id);
`

// openPlans makes the store, resuming the change sequence where the file left it.
func openPlans(ctx context.Context, w *sql.DB, r *readDB, f *faults) (*plansStore, error) {
	s := &plansStore{w: w, r: r, f: f}
	var seq sql.NullInt64
	if err := w.QueryRowContext(ctx, `SELECT MAX(seq) FROM sessions`).Scan(&seq); err != nil {
		return nil, err
	}
	s.seq.Store(uint64(seq.Int64))
	var err error
	if s.stmt, err = prepareWrites(ctx, w); err != nil {
		return nil, err
	}
	return s, nil
}

// Seq is the newest change sequence number.
func (s *plansStore) Seq() uint64 { return s.seq.Load() }

// Commit writes one batch of changes in a single transaction.
func (s *plansStore) Commit(ctx context.Context, c *plans.Changes) error {
	t, err := s.begin(ctx)
	if err != nil {
		return err
	}
	return t.Commit(ctx, c)
}

// write writes c in tx as change seq. Its revisions go to the cache (the batch's Committed)
// once tx commits.
func (s *plansStore) write(ctx context.Context, tx *rawConn, c *plans.Changes, seq uint64) (*delta.Batch, error) {
	// Each table's rows go out together, several to a statement (multirow.go).
	args := make([]any, 0, 7*max(len(c.Sessions), len(c.Plans), len(c.ToolCalls)))
	for _, sess := range c.Sessions {
		sess.Seq = seq
		args = append(args, sess.ID, delta.EncodeSession(sess), sess.LastSeen.UnixNano(), sess.Ended, seq, plans.TimeNS(sess.FirstSeen))
	}
	if err := s.stmt.upsertSession.exec(ctx, tx, args); err != nil {
		return nil, err
	}
	batch, err := s.putRevisions(ctx, tx, c.Revisions, seq)
	if err != nil {
		return nil, err
	}
	args = args[:0]
	for _, p := range c.Plans {
		p.Seq = seq
		// A plan's row is its newest revision, which putRevisions just encoded: a revision
		// number names one state of a plan.
		body := batch.Whole(p)
		if body == nil {
			body = delta.EncodePlan(p)
		}
		args = append(args, p.SessionID, p.ID, p.Removed, p.Updated.UnixNano(), body, len(p.Entries), p.OpenEntries())
	}
	if err := s.stmt.upsertPlan.exec(ctx, tx, args); err != nil {
		return nil, err
	}
	args = args[:0]
	for _, t := range c.ToolCalls {
		args = append(args, t.SessionID, t.ID, t.Created.UnixNano(), mustJSON(t))
	}
	if err := s.stmt.upsertToolCall.exec(ctx, tx, args); err != nil {
		return nil, err
	}
	for _, a := range c.Activity {
		if a.ID != 0 {
			if _, err := tx.exec(ctx, sqlUpdateActivity, mustJSON(a), a.ID); err != nil {
				return nil, err
			}
			continue
		}
		res, err := tx.exec(ctx, sqlInsertActivity, a.SessionID, mustJSON(a))
		if err != nil {
			return nil, err
		}
		if a.ID, err = res.LastInsertId(); err != nil {
			return nil, err
		}
	}
	return batch, nil
}

// Session loads one session. Reads during a batch go to the writer so they see its own state.
func (s *plansStore) Session(ctx context.Context, id string) (plans.Session, error) {
	return oneStmt[plans.Session](ctx, s.stmt.session, id)
}

// Plan loads a plan's current revision.
func (s *plansStore) Plan(ctx context.Context, sessionID, planID string) (plans.Plan, error) {
	return oneStmt[plans.Plan](ctx, s.stmt.plan, sessionID, planID)
}

// ToolCall loads one tool call.
func (s *plansStore) ToolCall(ctx context.Context, sessionID, id string) (plans.ToolCall, error) {
	return oneStmt[plans.ToolCall](ctx, s.stmt.toolCall, sessionID, id)
}

// LastActivity loads a session's newest activity.
func (s *plansStore) LastActivity(ctx context.Context, sessionID string) (plans.Activity, error) {
	return lastActivity(ctx, s.stmt.lastActivity, sessionID)
}

// lastActivity reads a session's newest activity with st (writeStmts.lastActivity).
func lastActivity(ctx context.Context, st *sql.Stmt, sessionID string) (plans.Activity, error) {
	var id int64
	var body []byte
	err := st.QueryRowContext(ctx, sessionID).Scan(&id, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return plans.Activity{}, plans.ErrNotFound
	}
	if err != nil {
		return plans.Activity{}, err
	}
	a, err := decode[plans.Activity](body)
	a.ID = id
	return a, err
}

// Overview lists active sessions with their active plans.
func (s *plansStore) Overview(ctx context.Context, now time.Time, idle time.Duration) ([]plans.SessionPlans, uint64, error) {
	seq := s.seq.Load()
	rows, err := s.r.QueryContext(ctx, `SELECT s.body, p.body FROM sessions s JOIN plans p ON p.session_id = s.id
		WHERE s.ended = 0 AND s.last_seen > ? AND p.removed = 0
		ORDER BY s.last_seen DESC, s.id, p.updated DESC, p.plan_id`, now.Add(-idle).UnixNano())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []plans.SessionPlans
	var sbody, pbody []byte
	for rows.Next() {
		if err := rows.Scan(&sbody, &pbody); err != nil {
			return nil, 0, err
		}
		p, err := decode[plans.Plan](pbody)
		if err != nil {
			return nil, 0, err
		}
		if n := len(out); n == 0 || out[n-1].Session.ID != p.SessionID {
			sess, err := decode[plans.Session](sbody)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, plans.SessionPlans{Session: sess})
		}
		last := &out[len(out)-1]
		last.Add(p)
	}
	return out, seq, rows.Err()
}

// WentIdle lists the sessions with plans whose last sighting is in (after, upTo], by the
// sessions_last_seen index.
func (s *plansStore) WentIdle(ctx context.Context, after, upTo time.Time) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT s.id FROM sessions s WHERE s.last_seen > ? AND s.last_seen <= ? AND s.ended = 0
		AND `+sqlHasPlan+` ORDER BY s.last_seen, s.id`, after.UnixNano(), upTo.UnixNano())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Sessions lists recent sessions.
func (s *plansStore) Sessions(ctx context.Context, limit int) ([]plans.Session, error) {
	return many[plans.Session](ctx, s.r, `SELECT body FROM sessions ORDER BY last_seen DESC`+limitTo(limit))
}

// SessionPlans lists all plans of a session, newest first.
func (s *plansStore) SessionPlans(ctx context.Context, sessionID string) ([]plans.Plan, error) {
	return many[plans.Plan](ctx, s.r, `SELECT body FROM plans WHERE session_id=? ORDER BY removed, updated DESC, plan_id`, sessionID)
}

// toolCallCount keeps how many tool calls each session has on its row: counting them costs a
// session with thousands of calls more than the rest of a change. The trigger counts a row
// only when it is inserted, not when an upsert updates it.
const toolCallCount = `
ALTER TABLE sessions ADD COLUMN tool_calls INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET tool_calls = (SELECT count(*) FROM tool_calls t WHERE t.session_id = sessions.id);
CREATE TRIGGER tool_calls_counted AFTER INSERT ON tool_calls BEGIN
	UPDATE sessions SET tool_calls = tool_calls + 1 WHERE id = NEW.session_id;
END;
`

// RecentToolCalls lists a session's newest limit tool calls, oldest first, and how many it has.
func (s *plansStore) RecentToolCalls(ctx context.Context, sessionID string, limit int) ([]plans.ToolCall, int, error) {
	var total int
	err := s.r.QueryRowContext(ctx, `SELECT tool_calls FROM sessions WHERE id=?`, sessionID).Scan(&total)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, 0, err
	}
	calls, err := many[plans.ToolCall](ctx, s.r, `SELECT body FROM (SELECT body, created, id FROM tool_calls WHERE session_id=?
		ORDER BY created DESC, id DESC`+limitTo(limit)+`) ORDER BY created, id`, sessionID)
	return calls, total, err
}

// ToolCalls lists a session's tool calls in the order they started.
func (s *plansStore) ToolCalls(ctx context.Context, sessionID string) ([]plans.ToolCall, error) {
	return many[plans.ToolCall](ctx, s.r, `SELECT body FROM tool_calls WHERE session_id=? ORDER BY created, id`, sessionID)
}

// Activity lists a session's newest activity, oldest first. The id is the row's: a body is
// written before its row id is known, so only activity merged later carries it in the body.
func (s *plansStore) Activity(ctx context.Context, sessionID string, limit int) ([]plans.Activity, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, body FROM (SELECT id, body FROM activity WHERE session_id=?
		ORDER BY id DESC`+limitTo(limit)+`) ORDER BY id`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []plans.Activity{}
	for rows.Next() {
		var id int64
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, err
		}
		a, err := decode[plans.Activity](body)
		if err != nil {
			return nil, err
		}
		a.ID = id
		out = append(out, a)
	}
	return out, rows.Err()
}

// ChangedSince lists sessions changed after seq.
func (s *plansStore) ChangedSince(ctx context.Context, seq uint64) ([]string, uint64, error) {
	cur := s.seq.Load()
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM sessions WHERE seq > ? ORDER BY seq`, seq)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, cur, rows.Err()
}

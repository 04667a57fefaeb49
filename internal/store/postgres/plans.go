package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/plandash/plandash/internal/changes"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
)

// plansStore implements plans.Store.
type plansStore struct {
	pool *dbPool
	note *notifier
	// seq is the newest Seq this instance committed or read from plans_clock. It may lag
	// behind other instances' commits, never run ahead of what is committed: a page that
	// reads it before the store sees some changes twice, never misses one.
	seq   atomic.Uint64
	cache delta.Cache // newest revisions, the bases of the next deltas
}

var _ plans.Store = (*plansStore)(nil)

// plansSchema is the sessions store's tables: each value is its domain JSON, with the columns
// queries filter and sort on copied out of it. Identifiers sort bytewise (COLLATE "C"), as in
// SQLite, whatever the database's default collation. plans_seq numbers the commits of every
// instance; plans_clock holds the newest committed number, so readers learn it from committed
// data (a sequence's last_value counts numbers drawn by transactions still running).
const plansSchema = `
CREATE SEQUENCE plans_seq;
CREATE TABLE plans_clock (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	seq bigint NOT NULL
);
INSERT INTO plans_clock(seq) VALUES (0);
CREATE TABLE sessions (
	id text COLLATE "C" PRIMARY KEY,
	body json NOT NULL,
	last_seen_ns bigint NOT NULL,
	ended boolean NOT NULL DEFAULT false,
	seq bigint NOT NULL
);
CREATE INDEX sessions_seq ON sessions(seq);
CREATE INDEX sessions_last_seen ON sessions(last_seen_ns);
CREATE TABLE plans (
	session_id text COLLATE "C" NOT NULL,
	plan_id text COLLATE "C" NOT NULL,
	removed boolean NOT NULL,
	updated_ns bigint NOT NULL,
	body json NOT NULL,
	PRIMARY KEY (session_id, plan_id)
);
CREATE TABLE plan_revisions (
	session_id text COLLATE "C" NOT NULL,
	plan_id text COLLATE "C" NOT NULL,
	revision integer NOT NULL,
	body json NOT NULL,
	PRIMARY KEY (session_id, plan_id, revision)
);
CREATE TABLE tool_calls (
	session_id text COLLATE "C" NOT NULL,
	id text COLLATE "C" NOT NULL,
	created_ns bigint NOT NULL,
	body json NOT NULL,
	PRIMARY KEY (session_id, id)
);
CREATE TABLE activity (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id text COLLATE "C" NOT NULL,
	body json NOT NULL
);
CREATE INDEX activity_session ON activity(session_id, id);
`

// openPlans makes the store, starting its Seq at the database's.
func openPlans(ctx context.Context, pool *dbPool, note *notifier) (*plansStore, error) {
	s := &plansStore{pool: pool, note: note}
	if _, err := s.clock(ctx, pool); err != nil {
		return nil, err
	}
	return s, nil
}

// clock reads the newest committed Seq and remembers it.
func (s *plansStore) clock(ctx context.Context, q querier) (uint64, error) {
	var seq int64
	if err := q.QueryRow(ctx, `SELECT seq FROM plans_clock`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read the change sequence: %w", err)
	}
	s.saw(uint64(seq))
	return uint64(seq), nil
}

// saw raises the remembered Seq to seq; concurrent readers may report in any order.
func (s *plansStore) saw(seq uint64) {
	for {
		cur := s.seq.Load()
		if seq <= cur || s.seq.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// Seq is the newest change sequence number this instance knows of.
func (s *plansStore) Seq() uint64 { return s.seq.Load() }

// Commit writes one batch of changes in a single transaction, in one round trip after the
// sequence number is drawn.
//
// Sequence numbers committed out of order would make ChangedSince lose changes: if instance A
// draws 10 and B draws 11 and commits first, a reader at 11 would never be shown 10. So the
// number is drawn after taking the plans lock, held until the transaction ends: commits, of all
// instances, become visible in the order of their numbers, and plans_clock (written last, in
// the same transaction) is a number every change up to which is visible. The cost is that plan
// commits queue on one lock across instances; within one instance the Service already queues
// them.
func (s *plansStore) Commit(ctx context.Context, c *plans.Changes) error {
	var (
		seq   uint64
		batch *delta.Batch
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSQL, lockPlans); err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRow(ctx, `SELECT nextval('plans_seq')`).Scan(&n); err != nil {
			return err
		}
		seq = uint64(n)
		b := &pgx.Batch{}
		for _, sess := range c.Sessions {
			sess.Seq = seq
			b.Queue(`INSERT INTO sessions(id, body, last_seen_ns, ended, seq, first_seen_ns) VALUES($1,$2,$3,$4,$5,$6)
				ON CONFLICT(id) DO UPDATE SET body=excluded.body, last_seen_ns=excluded.last_seen_ns, ended=excluded.ended, seq=excluded.seq`,
				sess.ID, delta.EncodeSession(sess), sess.LastSeen.UnixNano(), sess.Ended, n, plans.TimeNS(sess.FirstSeen))
		}
		var err error
		if batch, err = s.putRevisions(ctx, tx, b, c.Revisions, seq); err != nil {
			return err
		}
		for _, p := range c.Plans {
			p.Seq = seq
			// A plan's row is its newest revision, which putRevisions just encoded: a revision
			// number names one state of a plan.
			body := batch.Whole(p)
			if body == nil {
				body = mustJSON(p)
			}
			b.Queue(`INSERT INTO plans(session_id, plan_id, removed, updated_ns, body, seq, entry_count, open_count) VALUES($1,$2,$3,$4,$5,$6,$7,$8)
				ON CONFLICT(session_id, plan_id) DO UPDATE SET removed=excluded.removed, updated_ns=excluded.updated_ns, body=excluded.body, seq=excluded.seq,
					entry_count=excluded.entry_count, open_count=excluded.open_count`,
				p.SessionID, p.ID, p.Removed, p.Updated.UnixNano(), body, n, len(p.Entries), p.OpenEntries())
		}
		for _, t := range c.ToolCalls {
			b.Queue(`INSERT INTO tool_calls(session_id, id, created_ns, body, seq) VALUES($1,$2,$3,$4,$5)
				ON CONFLICT(session_id, id) DO UPDATE SET body=excluded.body, seq=excluded.seq`,
				t.SessionID, t.ID, t.Created.UnixNano(), mustJSON(t), n)
		}
		for _, a := range c.Activity {
			if a.ID != 0 {
				b.Queue(`UPDATE activity SET body=$1 WHERE id=$2`, mustJSON(a), a.ID)
				continue
			}
			b.Queue(`INSERT INTO activity(session_id, body) VALUES($1,$2) RETURNING id`, a.SessionID, mustJSON(a)).
				QueryRow(func(row pgx.Row) error { return row.Scan(&a.ID) })
		}
		b.Queue(`UPDATE plans_clock SET seq = $1`, n)
		s.note.queue(b, streamPlans, seq, commitNotes(c)...)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return revisionError(err, c.Revisions)
		}
		return nil
	})
	if err != nil {
		return err
	}
	batch.Committed()
	s.saw(seq)
	return nil
}

// commitNotes are what a commit tells other instances: the parts a session's page redoes on
// their own, as the live layer names them.
func commitNotes(c *plans.Changes) []Note {
	out := make([]Note, 0, len(c.Sessions)+len(c.Plans)+len(c.ToolCalls)+len(c.Activity))
	for _, sess := range c.Sessions {
		out = append(out, Note{Kind: NoteSession, ID: sess.ID})
	}
	for _, p := range c.Plans {
		out = append(out, Note{Kind: NoteSession, ID: p.SessionID, Part: changes.PartPlan + p.ID})
		if p.Removed {
			out = append(out, Note{Kind: NoteSession, ID: p.SessionID, Part: changes.PartRemoved + p.ID})
		}
	}
	for _, t := range c.ToolCalls {
		out = append(out, Note{Kind: NoteSession, ID: t.SessionID, Part: changes.PartCall + t.ID})
	}
	counted := map[string]bool{}
	for _, k := range c.NewToolCalls {
		if !counted[k.SessionID] {
			counted[k.SessionID] = true
			out = append(out, Note{Kind: NoteSession, ID: k.SessionID, Part: changes.PartCallCount})
		}
	}
	seen := map[string]bool{}
	for _, a := range c.Activity {
		if !seen[a.SessionID] {
			seen[a.SessionID] = true
			out = append(out, Note{Kind: NoteSession, ID: a.SessionID, Part: changes.PartActivity})
		}
	}
	return out
}

// revisionError says which rule a batch broke when it stores a plan's revision twice: a bug
// in the caller, which should show in the log as such.
func revisionError(err error, revs []*plans.Plan) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.ConstraintName == "plan_revisions_pkey" {
		return fmt.Errorf("store plan revisions (%d in the batch): a revision is stored already: %w", len(revs), err)
	}
	return err
}

// Session loads one session.
func (s *plansStore) Session(ctx context.Context, id string) (plans.Session, error) {
	return one[plans.Session](ctx, s.pool, plans.ErrNotFound, `SELECT body FROM sessions WHERE id=$1`, id)
}

// Plan loads a plan's current revision.
func (s *plansStore) Plan(ctx context.Context, sessionID, planID string) (plans.Plan, error) {
	return one[plans.Plan](ctx, s.pool, plans.ErrNotFound, `SELECT body FROM plans WHERE session_id=$1 AND plan_id=$2`, sessionID, planID)
}

// ToolCall loads one tool call.
func (s *plansStore) ToolCall(ctx context.Context, sessionID, id string) (plans.ToolCall, error) {
	return one[plans.ToolCall](ctx, s.pool, plans.ErrNotFound, `SELECT body FROM tool_calls WHERE session_id=$1 AND id=$2`, sessionID, id)
}

// LastActivity loads a session's newest activity.
func (s *plansStore) LastActivity(ctx context.Context, sessionID string) (plans.Activity, error) {
	as, err := s.activity(ctx, `SELECT id, body FROM activity WHERE session_id=$1 ORDER BY id DESC LIMIT 1`, sessionID)
	if err != nil {
		return plans.Activity{}, err
	}
	if len(as) == 0 {
		return plans.Activity{}, plans.ErrNotFound
	}
	return as[0], nil
}

// Overview lists active sessions with their active plans, and the Seq of the same snapshot.
func (s *plansStore) Overview(ctx context.Context, now time.Time, idle time.Duration) ([]plans.SessionPlans, uint64, error) {
	var out []plans.SessionPlans
	var seq uint64
	err := readSnapshot(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if seq, err = s.clock(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT s.body, p.body FROM sessions s JOIN plans p ON p.session_id = s.id
			WHERE NOT s.ended AND s.last_seen_ns > $1 AND NOT p.removed
			ORDER BY s.last_seen_ns DESC, s.id, p.updated_ns DESC, p.plan_id`, now.Add(-idle).UnixNano())
		if err != nil {
			return err
		}
		defer rows.Close()
		var sbody, pbody []byte
		for rows.Next() {
			if err := rows.Scan(&sbody, &pbody); err != nil {
				return err
			}
			p, err := decode[plans.Plan](pbody)
			if err != nil {
				return err
			}
			if n := len(out); n == 0 || out[n-1].Session.ID != p.SessionID {
				sess, err := decode[plans.Session](sbody)
				if err != nil {
					return err
				}
				out = append(out, plans.SessionPlans{Session: sess})
			}
			last := &out[len(out)-1]
			last.Add(p)
		}
		return rows.Err()
	})
	return out, seq, err
}

// WentIdle lists the sessions with plans whose last sighting is in (after, upTo], by the
// sessions_last_seen index.
func (s *plansStore) WentIdle(ctx context.Context, after, upTo time.Time) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT s.id FROM sessions s WHERE s.last_seen_ns > $1 AND s.last_seen_ns <= $2 AND NOT s.ended
		AND `+pgHasPlan+` ORDER BY s.last_seen_ns, s.id`, after.UnixNano(), upTo.UnixNano())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Sessions lists recent sessions.
func (s *plansStore) Sessions(ctx context.Context, n int) ([]plans.Session, error) {
	return many[plans.Session](ctx, s.pool, `SELECT body FROM sessions ORDER BY last_seen_ns DESC, id LIMIT $1`, limit(n))
}

// SessionPlans lists all plans of a session, live ones first, each newest first.
func (s *plansStore) SessionPlans(ctx context.Context, sessionID string) ([]plans.Plan, error) {
	return many[plans.Plan](ctx, s.pool, `SELECT body FROM plans WHERE session_id=$1 ORDER BY removed, updated_ns DESC, plan_id`, sessionID)
}

// ToolCalls lists a session's tool calls in the order they started.
func (s *plansStore) ToolCalls(ctx context.Context, sessionID string) ([]plans.ToolCall, error) {
	return many[plans.ToolCall](ctx, s.pool, `SELECT body FROM tool_calls WHERE session_id=$1 ORDER BY created_ns, id`, sessionID)
}

// toolCallCount keeps how many tool calls each session has on its row: counting them costs a
// session with thousands of calls more than the rest of a change. The trigger counts a row only
// when it is inserted, not when an upsert updates it; its function keeps the schema it was
// made in, so deployments in different schemas count their own sessions.
const toolCallCount = `
ALTER TABLE sessions ADD COLUMN tool_calls bigint NOT NULL DEFAULT 0;
UPDATE sessions s SET tool_calls = (SELECT count(*) FROM tool_calls t WHERE t.session_id = s.id);
CREATE FUNCTION plandash_count_tool_call() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	UPDATE sessions SET tool_calls = tool_calls + 1 WHERE id = NEW.session_id;
	RETURN NULL;
END
$$;
CREATE TRIGGER tool_calls_counted AFTER INSERT ON tool_calls FOR EACH ROW EXECUTE FUNCTION plandash_count_tool_call();
`

// RecentToolCalls lists a session's newest limit tool calls, oldest first, and how many it has.
func (s *plansStore) RecentToolCalls(ctx context.Context, sessionID string, limit int) ([]plans.ToolCall, int, error) {
	var total int
	err := s.pool.QueryRow(ctx, `SELECT tool_calls FROM sessions WHERE id=$1`, sessionID).Scan(&total)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, err
	}
	calls, err := many[plans.ToolCall](ctx, s.pool, `SELECT body FROM (SELECT body, created_ns, id FROM tool_calls WHERE session_id=$1
		ORDER BY created_ns DESC, id DESC LIMIT $2) t ORDER BY created_ns, id`, sessionID, limit)
	return calls, total, err
}

// Activity lists a session's newest activity, oldest first.
func (s *plansStore) Activity(ctx context.Context, sessionID string, n int) ([]plans.Activity, error) {
	return s.activity(ctx, `SELECT id, body FROM (SELECT id, body FROM activity WHERE session_id=$1
		ORDER BY id DESC LIMIT $2) newest ORDER BY id`, sessionID, limit(n))
}

// activity runs a query for (id, body) rows; the id column is the truth, the body's copy of it
// is 0 for activity stored before its id was known.
func (s *plansStore) activity(ctx context.Context, q string, args ...any) ([]plans.Activity, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []plans.Activity
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

// ChangedSince lists sessions changed after seq, and the Seq of the same snapshot: every
// change up to it is in the list or was before seq, whichever instance made it.
func (s *plansStore) ChangedSince(ctx context.Context, seq uint64) ([]string, uint64, error) {
	var ids []string
	var cur uint64
	err := readSnapshot(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if cur, err = s.clock(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id FROM sessions WHERE seq > $1 ORDER BY seq, id`, int64(seq))
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return ids, cur, err
}

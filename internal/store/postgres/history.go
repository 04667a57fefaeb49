package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/sharedplans"
)

// historyStore implements sharedplans.HistoryStore: every state of docker-agent's shared plans
// that plandash has seen, so the dashboard can show revisions and diffs.
type historyStore struct {
	pool *dbPool
	note *notifier
}

var _ sharedplans.HistoryStore = (*historyStore)(nil)

type entry = sharedplans.HistoryEntry

// historySchema is the shared-plan history's table; seen_at_ms is Unix milliseconds. seq is
// drawn from shared_plan_history_seq under the history lock (see Record).
const historySchema = `
CREATE SEQUENCE shared_plan_history_seq;
CREATE TABLE shared_plan_history (
	seq bigint PRIMARY KEY,
	name text COLLATE "C" NOT NULL,
	revision integer NOT NULL,
	removed boolean NOT NULL DEFAULT false,
	title text NOT NULL DEFAULT '',
	author text NOT NULL DEFAULT '',
	status text NOT NULL DEFAULT '',
	content text NOT NULL DEFAULT '',
	updated_at text NOT NULL DEFAULT '',
	seen_at_ms bigint NOT NULL,
	source text NOT NULL DEFAULT 'disk'
);
CREATE INDEX shared_plan_history_name ON shared_plan_history(name, seq);
`

const columns = `seq, name, revision, removed, title, author, status, content, updated_at, seen_at_ms, source`

// Record stores e unless it describes the same state as the plan's newest entry. It returns
// the entry as stored (or the existing one) and whether it was added. A removal of a plan
// with no history, or already removed, is not recorded.
//
// Several instances may watch the same plans directory and see the same change. The history
// lock, held until commit, makes "read the newest entry, then add one" one step across
// instances, so they record a state once; and, as for plans, it makes Seq values visible in
// the order they were drawn, so ChangedSince misses nothing.
func (s *historyStore) Record(ctx context.Context, e entry) (entry, bool, error) {
	var last entry
	added := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSQL, lockHistory); err != nil {
			return err
		}
		var ok bool
		var err error
		last, ok, err = scanOne(tx.QueryRow(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = $1 ORDER BY seq DESC LIMIT 1`, e.Name))
		if err != nil {
			return err
		}
		if ok && last.SameState(e) || !ok && e.Removed {
			return nil
		}
		if e.SeenAt.IsZero() {
			e.SeenAt = time.Now()
		}
		if e.Source == "" {
			e.Source = "disk"
		}
		if e.Removed {
			// A removal keeps what was removed out of the row: the previous entry has it.
			e.Title, e.Author, e.Status, e.Content, e.UpdatedAt = "", "", "", "", ""
		}
		if err := tx.QueryRow(ctx, `INSERT INTO shared_plan_history(seq, name, revision, removed, title, author, status, content, updated_at, seen_at_ms, source)
			VALUES(nextval('shared_plan_history_seq'),$1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING seq`,
			e.Name, e.Revision, e.Removed, e.Title, e.Author, e.Status, e.Content, e.UpdatedAt, e.SeenAt.UnixMilli(), e.Source).Scan(&e.Seq); err != nil {
			return err
		}
		added = true
		return s.note.send(ctx, tx, streamHistory, uint64(e.Seq), Note{Kind: NoteShared, ID: e.Name})
	})
	switch {
	case err != nil:
		return entry{}, false, err
	case !added:
		return last, false, nil
	}
	e.SeenAt = time.UnixMilli(e.SeenAt.UnixMilli())
	return e, true, nil
}

// Seq is the newest entry's Seq, 0 when there is none.
func (s *historyStore) Seq(ctx context.Context) (int64, error) {
	var seq *int64
	if err := s.pool.QueryRow(ctx, `SELECT MAX(seq) FROM shared_plan_history`).Scan(&seq); err != nil || seq == nil {
		return 0, err
	}
	return *seq, nil
}

// Entry returns the entry with the given Seq for the named plan.
func (s *historyStore) Entry(ctx context.Context, name string, seq int64) (entry, bool, error) {
	return scanOne(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = $1 AND seq = $2`, name, seq))
}

// Latest returns the plan's newest entry.
func (s *historyStore) Latest(ctx context.Context, name string) (entry, bool, error) {
	return scanOne(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = $1 ORDER BY seq DESC LIMIT 1`, name))
}

// History returns up to n of the plan's newest entries, newest first, without their content
// (Entry has it).
func (s *historyStore) History(ctx context.Context, name string, n int) ([]entry, error) {
	return s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at_ms, source
		FROM shared_plan_history WHERE name = $1 ORDER BY seq DESC LIMIT $2`, name, limit(n))
}

// HistoryBefore returns up to n of the plan's entries older than Seq before (all when
// before <= 0), newest first, without their content.
func (s *historyStore) HistoryBefore(ctx context.Context, name string, before int64, n int) ([]entry, error) {
	if before <= 0 {
		return s.History(ctx, name, n)
	}
	return s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at_ms, source
		FROM shared_plan_history WHERE name = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`, name, before, limit(n))
}

// ChangedSince returns the newest entry of every plan that changed after seq, in Seq order:
// what a page rendered at seq has not seen.
func (s *historyStore) ChangedSince(ctx context.Context, seq int64) ([]entry, error) {
	return s.query(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE seq IN (
		SELECT MAX(seq) FROM shared_plan_history WHERE seq > $1 GROUP BY name) ORDER BY seq`, seq)
}

// Current returns the newest entry of every plan not recorded as removed, keyed by name,
// without content: what the history believes is on disk.
func (s *historyStore) Current(ctx context.Context) (map[string]entry, error) {
	es, err := s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at_ms, source
		FROM shared_plan_history WHERE seq IN (SELECT MAX(seq) FROM shared_plan_history GROUP BY name) AND NOT removed`)
	if err != nil {
		return nil, err
	}
	out := make(map[string]entry, len(es))
	for _, e := range es {
		out[e.Name] = e
	}
	return out, nil
}

func scan(r pgx.Row) (entry, error) {
	var (
		e    entry
		seen int64
	)
	err := r.Scan(&e.Seq, &e.Name, &e.Revision, &e.Removed, &e.Title, &e.Author, &e.Status, &e.Content, &e.UpdatedAt, &seen, &e.Source)
	e.SeenAt = time.UnixMilli(seen)
	return e, err
}

func scanOne(r pgx.Row) (entry, bool, error) {
	e, err := scan(r)
	if errors.Is(err, pgx.ErrNoRows) {
		return entry{}, false, nil
	}
	return e, err == nil, err
}

func (s *historyStore) query(ctx context.Context, q string, args ...any) ([]entry, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entry
	for rows.Next() {
		e, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

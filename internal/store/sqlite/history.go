package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/plandash/plandash/internal/sharedplans"
)

// historyStore implements sharedplans.HistoryStore: every state of docker-agent's shared plans
// that plandash has seen, so the dashboard can show revisions and diffs.
type historyStore struct {
	w *sql.DB // the DB's writer
	r *readDB
	f *faults // the DB's storage faults
}

var _ sharedplans.HistoryStore = (*historyStore)(nil)

type entry = sharedplans.HistoryEntry

// historySchema is the shared-plan history's table; seen_at is Unix milliseconds.
const historySchema = `
CREATE TABLE IF NOT EXISTS shared_plan_history (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL,
	revision INTEGER NOT NULL,
	removed INTEGER NOT NULL DEFAULT 0,
	title TEXT NOT NULL DEFAULT '',
	author TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL DEFAULT '',
	content TEXT NOT NULL DEFAULT '',
	updated_at TEXT NOT NULL DEFAULT '',
	seen_at INTEGER NOT NULL,
	source TEXT NOT NULL DEFAULT 'disk'
);
CREATE INDEX IF NOT EXISTS shared_plan_history_name ON shared_plan_history(name, seq);
`

const columns = `seq, name, revision, removed, title, author, status, content, updated_at, seen_at, source`

// Record stores e unless it describes the same state as the plan's newest entry. It returns
// the entry as stored (or the existing one) and whether it was added. A removal of a plan
// with no history, or already removed, is not recorded.
func (s *historyStore) Record(ctx context.Context, e entry) (_ entry, _ bool, err error) {
	defer func() { err = s.f.note(err) }()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return entry{}, false, err
	}
	defer tx.Rollback()
	last, ok, err := scanOne(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = ? ORDER BY seq DESC LIMIT 1`, e.Name))
	if err != nil {
		return entry{}, false, err
	}
	if ok && last.SameState(e) || !ok && e.Removed {
		return last, false, nil
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
	res, err := tx.ExecContext(ctx, `INSERT INTO shared_plan_history(name, revision, removed, title, author, status, content, updated_at, seen_at, source)
		VALUES(?,?,?,?,?,?,?,?,?,?)`, e.Name, e.Revision, e.Removed, e.Title, e.Author, e.Status, e.Content, e.UpdatedAt, e.SeenAt.UnixMilli(), e.Source)
	if err != nil {
		return entry{}, false, err
	}
	if e.Seq, err = res.LastInsertId(); err != nil {
		return entry{}, false, err
	}
	if err := tx.Commit(); err != nil {
		return entry{}, false, err
	}
	e.SeenAt = time.UnixMilli(e.SeenAt.UnixMilli())
	return e, true, nil
}

// Seq is the newest entry's Seq, 0 when there is none.
func (s *historyStore) Seq(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT MAX(seq) FROM shared_plan_history`).Scan(&seq)
	return seq.Int64, err
}

// Entry returns the entry with the given Seq for the named plan.
func (s *historyStore) Entry(ctx context.Context, name string, seq int64) (entry, bool, error) {
	return scanOne(s.r.QueryRowContext(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = ? AND seq = ?`, name, seq))
}

// Latest returns the plan's newest entry.
func (s *historyStore) Latest(ctx context.Context, name string) (entry, bool, error) {
	return scanOne(s.r.QueryRowContext(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = ? ORDER BY seq DESC LIMIT 1`, name))
}

// History returns up to limit of the plan's newest entries, newest first, without their
// content (Entry has it).
func (s *historyStore) History(ctx context.Context, name string, limit int) ([]entry, error) {
	return s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at, source
		FROM shared_plan_history WHERE name = ? ORDER BY seq DESC`+limitTo(limit), name)
}

// HistoryBefore returns up to limit of the plan's entries older than Seq before (all when
// before <= 0), newest first, without their content.
func (s *historyStore) HistoryBefore(ctx context.Context, name string, before int64, limit int) ([]entry, error) {
	if before <= 0 {
		return s.History(ctx, name, limit)
	}
	return s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at, source
		FROM shared_plan_history WHERE name = ? AND seq < ? ORDER BY seq DESC`+limitTo(limit), name, before)
}

// ChangedSince returns the newest entry of every plan that changed after seq, in Seq order:
// what a page rendered at seq has not seen.
func (s *historyStore) ChangedSince(ctx context.Context, seq int64) ([]entry, error) {
	return s.query(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE seq IN (
		SELECT MAX(seq) FROM shared_plan_history WHERE seq > ? GROUP BY name) ORDER BY seq`, seq)
}

// Current returns the newest entry of every plan not recorded as removed, keyed by name,
// without content: what the history believes is on disk.
func (s *historyStore) Current(ctx context.Context) (map[string]entry, error) {
	es, err := s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at, source
		FROM shared_plan_history WHERE seq IN (SELECT MAX(seq) FROM shared_plan_history GROUP BY name) AND removed = 0`)
	if err != nil {
		return nil, err
	}
	out := make(map[string]entry, len(es))
	for _, e := range es {
		out[e.Name] = e
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scan(r scanner) (entry, error) {
	var (
		e    entry
		seen int64
	)
	err := r.Scan(&e.Seq, &e.Name, &e.Revision, &e.Removed, &e.Title, &e.Author, &e.Status, &e.Content, &e.UpdatedAt, &seen, &e.Source)
	e.SeenAt = time.UnixMilli(seen)
	return e, err
}

func scanOne(r *sql.Row) (entry, bool, error) {
	e, err := scan(r)
	if errors.Is(err, sql.ErrNoRows) {
		return entry{}, false, nil
	}
	return e, err == nil, err
}

func (s *historyStore) query(ctx context.Context, q string, args ...any) ([]entry, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
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

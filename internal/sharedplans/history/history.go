// Package history keeps every state of docker-agent's shared plans that plandash has seen, in
// SQLite, so the dashboard can show a plan's revisions and diffs. The plan files themselves
// keep only their newest state; this is the memory beside them. It lives in plandash's own
// database file, in its own table, next to (and independent of) the session store.
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Entry is one recorded state of a shared plan: a revision as read from disk, or its removal.
// Seq orders entries across all plans; Revision is the plan file's own counter, which starts
// again at 1 when a plan is deleted and created anew, so Seq (not Revision) names an entry.
type Entry struct {
	Seq       int64     `json:"seq"`
	Name      string    `json:"name"`
	Revision  int       `json:"revision"`
	Removed   bool      `json:"removed,omitempty"`
	Title     string    `json:"title,omitempty"`
	Author    string    `json:"author,omitempty"`
	Status    string    `json:"status,omitempty"`
	Content   string    `json:"content,omitempty"`
	UpdatedAt string    `json:"updatedAt,omitempty"`
	SeenAt    time.Time `json:"seenAt"`
	// Source says how plandash learned of the state: "disk" (seen by the watcher: docker-agent,
	// an MCP client, a person with an editor) or the plandash surface that wrote it ("browser",
	// "api").
	Source string `json:"source"`
}

// same reports whether two entries describe the same plan state, whoever wrote it and when
// it was seen.
func (e Entry) same(o Entry) bool {
	return e.Removed == o.Removed && e.Revision == o.Revision && e.UpdatedAt == o.UpdatedAt &&
		e.Title == o.Title && e.Author == o.Author && e.Status == o.Status && e.Content == o.Content
}

const schema = `
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

// Store is the history table. Record is meant to be called by one writer at a time (the
// dashboard serializes its observations); reads may run concurrently with it.
type Store struct {
	db *sql.DB
}

// Open opens (creating if needed) the history table in the SQLite file at path. The file may
// be shared with other stores: it runs in WAL mode, and waits for other writers instead of
// failing on a busy database.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open shared plan history in %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

const columns = `seq, name, revision, removed, title, author, status, content, updated_at, seen_at, source`

// Record stores e unless it describes the same state as the plan's newest entry. It returns
// the entry as stored (or the existing one) and whether it was added. A removal of a plan
// with no history, or already removed, is not recorded.
func (s *Store) Record(ctx context.Context, e Entry) (Entry, bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Entry{}, false, err
	}
	defer tx.Rollback()
	last, ok, err := scanOne(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = ? ORDER BY seq DESC LIMIT 1`, e.Name))
	if err != nil {
		return Entry{}, false, err
	}
	if ok && last.same(e) || !ok && e.Removed {
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
		return Entry{}, false, err
	}
	if e.Seq, err = res.LastInsertId(); err != nil {
		return Entry{}, false, err
	}
	if err := tx.Commit(); err != nil {
		return Entry{}, false, err
	}
	e.SeenAt = time.UnixMilli(e.SeenAt.UnixMilli())
	return e, true, nil
}

// Seq is the newest entry's Seq, 0 when there is none.
func (s *Store) Seq(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM shared_plan_history`).Scan(&seq)
	return seq.Int64, err
}

// Entry returns the entry with the given Seq for the named plan.
func (s *Store) Entry(ctx context.Context, name string, seq int64) (Entry, bool, error) {
	return scanOne(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = ? AND seq = ?`, name, seq))
}

// Latest returns the plan's newest entry.
func (s *Store) Latest(ctx context.Context, name string) (Entry, bool, error) {
	return scanOne(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE name = ? ORDER BY seq DESC LIMIT 1`, name))
}

// History returns up to limit of the plan's newest entries, newest first, without their
// content (Entry has it).
func (s *Store) History(ctx context.Context, name string, limit int) ([]Entry, error) {
	return s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at, source
		FROM shared_plan_history WHERE name = ? ORDER BY seq DESC LIMIT ?`, name, limit)
}

// ChangedSince returns the newest entry of every plan that changed after seq, in Seq order:
// what a page rendered at seq has not seen.
func (s *Store) ChangedSince(ctx context.Context, seq int64) ([]Entry, error) {
	return s.query(ctx, `SELECT `+columns+` FROM shared_plan_history WHERE seq IN (
		SELECT MAX(seq) FROM shared_plan_history WHERE seq > ? GROUP BY name) ORDER BY seq`, seq)
}

// Current returns the newest entry of every plan not recorded as removed, keyed by name,
// without content: what the history believes is on disk.
func (s *Store) Current(ctx context.Context) (map[string]Entry, error) {
	es, err := s.query(ctx, `SELECT seq, name, revision, removed, title, author, status, '', updated_at, seen_at, source
		FROM shared_plan_history WHERE seq IN (SELECT MAX(seq) FROM shared_plan_history GROUP BY name) AND removed = 0`)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Entry, len(es))
	for _, e := range es {
		out[e.Name] = e
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scan(r scanner) (Entry, error) {
	var (
		e    Entry
		seen int64
	)
	err := r.Scan(&e.Seq, &e.Name, &e.Revision, &e.Removed, &e.Title, &e.Author, &e.Status, &e.Content, &e.UpdatedAt, &seen, &e.Source)
	e.SeenAt = time.UnixMilli(seen)
	return e, err
}

func scanOne(r *sql.Row) (Entry, bool, error) {
	e, err := scan(r)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, false, nil
	}
	return e, err == nil, err
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Entry, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

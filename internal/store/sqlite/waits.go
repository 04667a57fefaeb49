package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
)

// keptWaitsSchema keeps the waits plandash itself holds (agents' questions, sessions waiting
// for a prompt): the record whole in body, and when it ended (0: still open), so the open ones
// are read without decoding the ended ones. It creates only what is missing, so it may run
// again on a database stepped back to an earlier version.
const keptWaitsSchema = `
CREATE TABLE IF NOT EXISTS kept_waits (
	id TEXT PRIMARY KEY,
	ended INTEGER NOT NULL DEFAULT 0,
	body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS kept_waits_ended ON kept_waits(ended);
`

// waitStore implements waits.Store on the DB's connections.
type waitStore struct {
	w *sql.DB // the DB's writer: its transactions are IMMEDIATE
	r *readDB
}

var _ waits.Store = (*waitStore)(nil)

// Waits is the store of the waits plandash keeps.
func (db *DB) Waits() waits.Store { return &waitStore{w: db.w, r: db.r} }

// Begin stores r, replacing a record of the same id.
func (s *waitStore) Begin(ctx context.Context, r waits.Record) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO kept_waits(id, ended, body) VALUES(?,?,?)
		ON CONFLICT(id) DO UPDATE SET ended=excluded.ended, body=excluded.body`, r.ID, nanos(r.Ended), mustJSON(r))
	return err
}

// End runs end on the record inside one writer transaction, and stores what it left.
func (s *waitStore) End(ctx context.Context, id string, end func(*waits.Record) error) (waits.Record, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return waits.Record{}, err
	}
	defer tx.Rollback()
	var cur *waits.Record
	var b []byte
	switch err := tx.QueryRowContext(ctx, `SELECT body FROM kept_waits WHERE id = ?`, id).Scan(&b); {
	case err == nil:
		r, err := decode[waits.Record](b)
		if err != nil {
			return waits.Record{}, err
		}
		cur = &r
	case !errors.Is(err, sql.ErrNoRows):
		return waits.Record{}, err
	}
	if err := end(cur); err != nil {
		return waits.Record{}, err
	}
	if cur == nil {
		return waits.Record{}, errs.Errorf(errs.NotFound, "no wait %q", id)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE kept_waits SET ended = ?, body = ? WHERE id = ?`, nanos(cur.Ended), mustJSON(cur), id); err != nil {
		return waits.Record{}, err
	}
	// Ended records are kept a while, so a late answer learns who won; the oldest go.
	if _, err := tx.ExecContext(ctx, `DELETE FROM kept_waits WHERE ended > 0 AND id NOT IN (
		SELECT id FROM kept_waits WHERE ended > 0 ORDER BY ended DESC LIMIT ?)`, waits.MaxEndedRecords); err != nil {
		return waits.Record{}, err
	}
	return *cur, tx.Commit()
}

// Get returns a record.
func (s *waitStore) Get(ctx context.Context, id string) (waits.Record, error) {
	var b []byte
	err := s.r.QueryRowContext(ctx, `SELECT body FROM kept_waits WHERE id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return waits.Record{}, errs.Errorf(errs.NotFound, "no wait %q", id)
	}
	if err != nil {
		return waits.Record{}, err
	}
	return decode[waits.Record](b)
}

// Open returns the records still open.
func (s *waitStore) Open(ctx context.Context) ([]waits.Record, error) {
	return many[waits.Record](ctx, s.r, `SELECT body FROM kept_waits WHERE ended = 0`)
}

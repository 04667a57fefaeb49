package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
)

// waitStore implements waits.Store: agents' questions and sessions waiting for a prompt live in
// the database, so a question asked through one instance is answered on any other, and the
// hook waiting on the first hears it (NoteWaits).
type waitStore struct {
	pool *pgxpool.Pool
	note *notifier
}

var _ waits.Store = (*waitStore)(nil)

// keptWaitsSchema: records by id, numbered by waits_clock as permission requests are, with when
// they ended (NULL: still open). It may run again on a database that has it (a test that steps
// the version back to an earlier step runs every later step again), so it creates only what is
// missing.
const keptWaitsSchema = `
CREATE TABLE IF NOT EXISTS waits_clock (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	n bigint NOT NULL
);
INSERT INTO waits_clock(n) VALUES (0) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS kept_waits (
	id text COLLATE "C" PRIMARY KEY,
	changed bigint NOT NULL,
	ended_ns bigint,
	body json NOT NULL
);
CREATE INDEX IF NOT EXISTS kept_waits_changed ON kept_waits(changed);
CREATE INDEX IF NOT EXISTS kept_waits_open ON kept_waits(id) WHERE ended_ns IS NULL;
CREATE INDEX IF NOT EXISTS kept_waits_ended ON kept_waits(ended_ns) WHERE ended_ns IS NOT NULL;
`

// Waits is the store of the waits plandash keeps.
func (db *DB) Waits() waits.Store { return &waitStore{pool: db.pool, note: db.note} }

// write runs fn in a transaction numbered in the waits stream, and notifies id's change.
func (s *waitStore) write(ctx context.Context, id string, fn func(tx pgx.Tx, n int64) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var n int64
		if err := tx.QueryRow(ctx, `UPDATE waits_clock SET n = n + 1 RETURNING n`).Scan(&n); err != nil {
			return err
		}
		if err := fn(tx, n); err != nil {
			return err
		}
		return s.note.send(ctx, tx, streamWaits, uint64(n), Note{Kind: NoteWaits, ID: id})
	})
}

func endedNS(r waits.Record) *int64 {
	if r.Open() {
		return nil
	}
	n := r.Ended.UnixNano()
	return &n
}

// Begin stores r, replacing a record of the same id.
func (s *waitStore) Begin(ctx context.Context, r waits.Record) error {
	return s.write(ctx, r.ID, func(tx pgx.Tx, n int64) error {
		_, err := tx.Exec(ctx, `INSERT INTO kept_waits(id, changed, ended_ns, body) VALUES($1,$2,$3,$4)
			ON CONFLICT(id) DO UPDATE SET changed=excluded.changed, ended_ns=excluded.ended_ns, body=excluded.body`,
			r.ID, n, endedNS(r), mustJSON(r))
		return err
	})
}

// End runs end on the record, locked for update: of two instances ending a wait at once, the
// second sees the first's outcome.
func (s *waitStore) End(ctx context.Context, id string, end func(*waits.Record) error) (waits.Record, error) {
	var out waits.Record
	err := s.write(ctx, id, func(tx pgx.Tx, n int64) error {
		var cur *waits.Record
		var b []byte
		switch err := tx.QueryRow(ctx, `SELECT body FROM kept_waits WHERE id=$1 FOR UPDATE`, id).Scan(&b); {
		case err == nil:
			r, err := decode[waits.Record](b)
			if err != nil {
				return err
			}
			cur = &r
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		if err := end(cur); err != nil {
			return err
		}
		if cur == nil {
			return errs.Errorf(errs.NotFound, "no wait %q", id)
		}
		if _, err := tx.Exec(ctx, `UPDATE kept_waits SET changed=$2, ended_ns=$3, body=$4 WHERE id=$1`, id, n, endedNS(*cur), mustJSON(cur)); err != nil {
			return err
		}
		out = *cur
		_, err := tx.Exec(ctx, `DELETE FROM kept_waits WHERE ended_ns IS NOT NULL AND id NOT IN (
			SELECT id FROM kept_waits WHERE ended_ns IS NOT NULL ORDER BY ended_ns DESC, changed DESC LIMIT $1)`, waits.MaxEndedRecords)
		return err
	})
	return out, err
}

// Get returns a record.
func (s *waitStore) Get(ctx context.Context, id string) (waits.Record, error) {
	return one[waits.Record](ctx, s.pool, errs.Errorf(errs.NotFound, "no wait %q", id), `SELECT body FROM kept_waits WHERE id=$1`, id)
}

// Open returns the records still open.
func (s *waitStore) Open(ctx context.Context) ([]waits.Record, error) {
	return many[waits.Record](ctx, s.pool, `SELECT body FROM kept_waits WHERE ended_ns IS NULL`)
}

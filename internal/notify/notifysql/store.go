package notifysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
)

// Dialect says which database a Store speaks to.
type Dialect int

// The dialects.
const (
	SQLite Dialect = iota
	Postgres
)

// Store is notify.Store on a database/sql handle.
type Store struct {
	db      *sql.DB
	r       *sql.DB // what reads only committed state goes to: db, or SQLite's readers
	dialect Dialect
}

var _ notify.Store = (*Store)(nil)

// New is the store on db, which has had the dialect's schema step applied. On SQLite, db is
// the one writer connection: every statement here writes or must see the newest writes.
func New(db *sql.DB, d Dialect) *Store { return &Store{db: db, r: db, dialect: d} }

// WithReader is the store with the reads that need only what was committed before them (the
// targets, the messages' ids, the recent deliveries) on readers: on SQLite they then do not
// hold the one writer connection that ingest and the gate queue for.
func (s *Store) WithReader(r *sql.DB) *Store {
	c := *s
	c.r = r
	return &c
}

// q writes a query for the dialect: $N placeholders become SQLite's ?N, and "SKIP LOCKED"
// row locks are PostgreSQL's alone (SQLite has one writer at a time anyway).
func (s *Store) q(query string) string {
	if s.dialect == Postgres {
		return strings.ReplaceAll(query, "/*lock*/", "FOR UPDATE SKIP LOCKED")
	}
	return strings.ReplaceAll(strings.ReplaceAll(query, "$", "?"), "/*lock*/", "")
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Enqueue implements notify.Store.
func (s *Store) Enqueue(ctx context.Context, ds []notify.Delivery) (int, error) {
	added, err := s.enqueue(ctx, "", time.Time{}, 0, ds)
	return len(added), err
}

// EnqueueClaimed implements notify.Store.
func (s *Store) EnqueueClaimed(ctx context.Context, owner string, now time.Time, lease time.Duration, ds []notify.Delivery) ([]notify.Delivery, error) {
	added, err := s.enqueue(ctx, owner, now, lease, ds)
	if err != nil {
		return nil, err
	}
	out := added[:0]
	for _, d := range added {
		if d.Attempts > 0 {
			out = append(out, d)
		}
	}
	return out, nil
}

// enqueue stores the new deliveries and their links in one transaction and returns the ones
// it stored; with an owner, those due at now are leased to it (Attempts 1).
func (s *Store) enqueue(ctx context.Context, owner string, now time.Time, lease time.Duration, ds []notify.Delivery) (added []notify.Delivery, err error) {
	err = s.outboxTx(ctx, func(tx *sql.Tx) error {
		added, err = s.insert(ctx, tx, owner, now, lease, ds)
		return err
	})
	return added, err
}

func (s *Store) insert(ctx context.Context, tx *sql.Tx, owner string, now time.Time, lease time.Duration, ds []notify.Delivery) ([]notify.Delivery, error) {
	stmt, err := tx.PrepareContext(ctx, s.q(`INSERT INTO notify_outbox(key, target, wait_id, event, wait, due, status, created, owner, lease_until, attempts)
		VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (key) DO NOTHING RETURNING id`))
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	var added []notify.Delivery
	for _, d := range ds {
		w, err := json.Marshal(d.Wait)
		if err != nil {
			return nil, err
		}
		d.Status = cmpOr(d.Status, notify.Pending)
		by, until := "", int64(0)
		if owner != "" && d.Status == notify.Pending && !d.Due.After(now) {
			by, until, d.Attempts = owner, nanos(now.Add(lease)), 1
		}
		err = stmt.QueryRowContext(ctx, d.Key, d.Target, d.Wait.ID, string(d.Event), string(w), nanos(d.Due), string(d.Status), nanos(d.Created), by, until, d.Attempts).Scan(&d.ID)
		if errors.Is(err, sql.ErrNoRows) {
			continue // stored already: its links are not stored, nor sent
		}
		if err != nil {
			return nil, err
		}
		for _, l := range d.Links {
			if err := s.addLink(ctx, tx, l); err != nil {
				return nil, err
			}
		}
		added = append(added, d)
	}
	return added, nil
}

// outboxTx runs fn in a transaction. On SQLite the outbox's own bookkeeping (what is due,
// claims, outcomes, skips) commits with synchronous=NORMAL, the writer connection going back
// to FULL after: its commits then do not wait for the disk, which the one writer would
// otherwise spend on them instead of on ingest and the gate. A process that crashes loses
// none of it (the WAL is written at commit); a power cut may lose the last of it, and all of
// that is made again at the next start: the open waits are announced again (same keys) and
// the ends of sent announcements again (Unended), with the same idempotency keys.
func (s *Store) outboxTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.dialect != SQLite {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return err
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`); err != nil {
			// Never hand the pool a writer that does not wait for the disk: drop it.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

const deliveryColumns = `id, key, target, event, wait, due, attempts, status, error, created, done`

func scanDelivery(sc interface{ Scan(...any) error }) (notify.Delivery, error) {
	var d notify.Delivery
	var ev, w, st string
	var due, created, done int64
	if err := sc.Scan(&d.ID, &d.Key, &d.Target, &ev, &w, &due, &d.Attempts, &st, &d.Error, &created, &done); err != nil {
		return d, err
	}
	d.Event, d.Status = notify.Event(ev), notify.Status(st)
	d.Due, d.Created, d.Done = fromNanos(due), fromNanos(created), fromNanos(done)
	if err := json.Unmarshal([]byte(w), &d.Wait); err != nil {
		return d, err
	}
	return d, nil
}

// Claim implements notify.Store. The subquery picks due, unleased rows (on PostgreSQL
// skipping rows another instance is claiming this moment), and the update re-checks them, so
// two instances never lease one row at once.
func (s *Store) Claim(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) (out []notify.Delivery, err error) {
	err = s.outboxTx(ctx, func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.QueryContext(ctx, s.q(`UPDATE notify_outbox SET owner = $1, lease_until = $2, attempts = attempts + 1
		WHERE id IN (SELECT id FROM notify_outbox WHERE status = 'pending' AND due <= $3 AND lease_until <= $3
			ORDER BY due, id LIMIT $4 /*lock*/)
		AND status = 'pending' AND lease_until <= $3
		RETURNING `+deliveryColumns), owner, nanos(now.Add(lease)), nanos(now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDelivery(rows)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return rows.Err()
	})
	return out, err
}

// Finish implements notify.Store.
func (s *Store) Finish(ctx context.Context, owner string, d notify.Delivery) (bool, error) {
	n, err := s.FinishAll(ctx, owner, []notify.Delivery{d})
	return n == 1, err
}

// FinishAll implements notify.Store.
func (s *Store) FinishAll(ctx context.Context, owner string, ds []notify.Delivery) (int, error) {
	if len(ds) == 0 {
		return 0, nil
	}
	finished := 0
	err := s.outboxTx(ctx, func(tx *sql.Tx) error {
		finished = 0
		for _, d := range ds {
			ok, err := s.finish(ctx, tx, owner, d)
			if err != nil {
				return err
			}
			if ok {
				finished++
			}
		}
		return nil
	})
	return finished, err
}

// finish finishes one delivery in tx: false when its lease went to another sender.
func (s *Store) finish(ctx context.Context, tx *sql.Tx, owner string, d notify.Delivery) (bool, error) {
	res, err := tx.ExecContext(ctx, s.q(`UPDATE notify_outbox SET status = $1, error = $2, due = $3, done = $4, owner = '', lease_until = 0
		WHERE id = $5 AND owner = $6 AND status = 'pending'`), string(d.Status), d.Error, nanos(d.Due), nanos(d.Done), d.ID, owner)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	if d.Remote == "" || d.Status != notify.Sent {
		return true, nil
	}
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO notify_remote(target, wait_id, remote, created) VALUES($1, $2, $3, $4)
		ON CONFLICT (target, wait_id) DO UPDATE SET remote = excluded.remote, created = excluded.created`),
		d.Target, d.Wait.ID, d.Remote, nanos(d.Done))
	return err == nil, err
}

// Remote implements notify.Store.
func (s *Store) Remote(ctx context.Context, target, waitID string) (string, int, int, error) {
	var remote string
	err := s.r.QueryRowContext(ctx, s.q(`SELECT remote FROM notify_remote WHERE target = $1 AND wait_id = $2`), target, waitID).Scan(&remote)
	if errors.Is(err, sql.ErrNoRows) {
		var pending int
		if err := s.r.QueryRowContext(ctx, s.q(`SELECT count(*) FROM notify_outbox WHERE target = $1 AND wait_id = $2 AND event = 'began' AND status = 'pending'`),
			target, waitID).Scan(&pending); err != nil {
			return "", 0, 0, err
		}
		if pending > 0 {
			return "", 0, 0, errs.Errorf(errs.Conflict, "the announcement of wait %q on %q is still being sent", waitID, target)
		}
		return "", 0, 0, errs.Errorf(errs.NotFound, "no message announced wait %q on %q", waitID, target)
	}
	if err != nil {
		return "", 0, 0, err
	}
	var announced, open int
	err = s.r.QueryRowContext(ctx, s.q(`SELECT count(*), count(*) FILTER (WHERE r.wait_id <> $3 AND NOT EXISTS (
			SELECT 1 FROM notify_outbox e WHERE e.key = r.target || '|' || r.wait_id || '|ended'))
		FROM notify_remote r WHERE r.target = $1 AND r.remote = $2`), target, remote, waitID).Scan(&announced, &open)
	return remote, announced, open, err
}

// Skip implements notify.Store: one statement for all the waits (an announcement may end
// hundreds at once), in chunks that keep under every database's parameter limit.
func (s *Store) Skip(ctx context.Context, waitIDs []string, ev notify.Event, now time.Time, why string) ([]string, error) {
	var out []string
	for chunk := range slices.Chunk(waitIDs, 500) {
		args := []any{why, nanos(now), string(ev)}
		marks := make([]string, len(chunk))
		for i, id := range chunk {
			args = append(args, id)
			marks[i] = "$" + strconv.Itoa(len(args))
		}
		var keys []string
		err := s.outboxTx(ctx, func(tx *sql.Tx) error {
			keys = nil
			rows, err := tx.QueryContext(ctx, s.q(`UPDATE notify_outbox SET status = 'skipped', error = $1, done = $2
				WHERE wait_id IN (`+strings.Join(marks, ", ")+`) AND event = $3 AND status = 'pending' AND lease_until <= $2 RETURNING key`), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var k string
				if err := rows.Scan(&k); err != nil {
					return err
				}
				keys = append(keys, k)
			}
			return rows.Err()
		})
		if err != nil {
			return nil, err
		}
		out = append(out, keys...)
	}
	return out, nil
}

// Recent implements notify.Store.
func (s *Store) Recent(ctx context.Context, target string, limit int) ([]notify.Delivery, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM notify_outbox WHERE target = $1 ORDER BY id DESC LIMIT $2`), target, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []notify.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// PutTarget implements notify.Store.
func (s *Store) PutTarget(ctx context.Context, t notify.Target) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO notify_targets(id, body, created) VALUES($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET body = excluded.body`), t.ID, string(b), nanos(t.Created))
	return err
}

// DeleteTarget implements notify.Store.
func (s *Store) DeleteTarget(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM notify_targets WHERE id = $1`), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.Errorf(errs.NotFound, "no notification target %q", id)
	}
	return nil
}

// Targets implements notify.Store.
func (s *Store) Targets(ctx context.Context) ([]notify.Target, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT body FROM notify_targets ORDER BY created, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []notify.Target
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		var t notify.Target
		if err := json.Unmarshal([]byte(b), &t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// AddLink implements notify.Store.
func (s *Store) AddLink(ctx context.Context, l notify.Link) error { return s.addLink(ctx, s.db, l) }

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *Store) addLink(ctx context.Context, db execer, l notify.Link) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, s.q(`INSERT INTO notify_links(hash, body, expires) VALUES($1, $2, $3)`), l.Hash, string(b), nanos(l.Expires))
	return err
}

// Link implements notify.Store.
func (s *Store) Link(ctx context.Context, hash string) (notify.Link, error) {
	var b string
	var used int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT body, used FROM notify_links WHERE hash = $1`), hash).Scan(&b, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return notify.Link{}, errs.New(errs.NotFound, "no such link")
	}
	if err != nil {
		return notify.Link{}, err
	}
	var l notify.Link
	if err := json.Unmarshal([]byte(b), &l); err != nil {
		return l, err
	}
	l.Used = fromNanos(used)
	return l, nil
}

// UseLink implements notify.Store: one UPDATE guarded by used = 0, so of two uses at once
// exactly one wins.
func (s *Store) UseLink(ctx context.Context, hash string, now time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE notify_links SET used = $1 WHERE hash = $2 AND used = 0`), nanos(now), hash)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// UnuseLink implements notify.Store.
func (s *Store) UnuseLink(ctx context.Context, hash string) error {
	_, err := s.db.ExecContext(ctx, s.q(`UPDATE notify_links SET used = 0 WHERE hash = $1`), hash)
	return err
}

// Secret implements notify.Store: insert-if-absent, then read, so instances racing to make
// the first value all read the one that was stored.
func (s *Store) Secret(ctx context.Context, name string, make func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := s.db.QueryRowContext(ctx, s.q(`SELECT value FROM notify_secrets WHERE name = $1`), name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	nv, err := make()
	if err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO notify_secrets(name, value) VALUES($1, $2) ON CONFLICT (name) DO NOTHING`), name, nv); err != nil {
		return nil, err
	}
	err = s.db.QueryRowContext(ctx, s.q(`SELECT value FROM notify_secrets WHERE name = $1`), name).Scan(&v)
	return v, err
}

// Prune implements notify.Store.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	n := 0
	for _, q := range []string{
		`DELETE FROM notify_outbox WHERE status <> 'pending' AND done > 0 AND done < $1`,
		`DELETE FROM notify_links WHERE expires < $1`,
		`DELETE FROM notify_remote WHERE created < $1`,
	} {
		res, err := s.db.ExecContext(ctx, s.q(q), nanos(before))
		if err != nil {
			return n, err
		}
		k, _ := res.RowsAffected()
		n += int(k)
	}
	return n, nil
}

// Unended implements notify.Store.
func (s *Store) Unended(ctx context.Context, limit int) ([]notify.Delivery, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM notify_outbox b
		WHERE b.event = 'began' AND b.status = 'sent' AND NOT EXISTS (
			SELECT 1 FROM notify_outbox e WHERE e.wait_id = b.wait_id AND e.target = b.target AND e.event = 'ended')
		ORDER BY b.id LIMIT $1`), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []notify.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

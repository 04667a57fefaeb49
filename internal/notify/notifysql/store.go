package notifysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
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
	db      *sql.DB // the outbox, the messages' ids and the links
	r       Reader  // what reads only committed state of those goes to: db, or SQLite's readers
	set     *sql.DB // the targets and the secrets: db, or (SQLite) the main database's writer
	setR    Reader  // the reads of the targets: set, or its readers
	dialect Dialect
	stmts   *stmts // SQLite's kept statements on db; nil on PostgreSQL
}

// Reader is what the reads of committed state go to: a *sql.DB, or one that keeps its
// statements prepared.
type Reader interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var _ notify.Store = (*Store)(nil)

// New is the store on db, which has had the dialect's schema step applied. On SQLite, db is
// the one writer connection: every statement here writes or must see the newest writes.
func New(db *sql.DB, d Dialect) *Store {
	s := &Store{db: db, r: db, set: db, setR: db, dialect: d}
	if d == SQLite {
		s.stmts = &stmts{db: db, m: map[string]*sql.Stmt{}}
	}
	return s
}

// WithReader is the store with the reads that need only what was committed before them (the
// messages' ids, the recent deliveries) on readers: on SQLite they then do not hold the one
// writer connection that the outbox's bookkeeping queues for.
func (s *Store) WithReader(r Reader) *Store {
	c := *s
	c.r = r
	return &c
}

// WithSettings is the store with the targets and the secrets (what an admin configured, the
// push keys: lasting state, backed up with the rest) on another database, w with its readers
// r. On SQLite the outbox, the messages' ids and the links (transient state, written on every
// wait's beginning and end) then have their own file and writer, so their commits never queue
// behind ingest's and the gate's on the main file's one writer, nor theirs behind them.
func (s *Store) WithSettings(w *sql.DB, r Reader) *Store {
	c := *s
	c.set, c.setR = w, r
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
	_, err = s.set.ExecContext(ctx, s.q(`INSERT INTO notify_targets(id, body, created) VALUES($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET body = excluded.body`), t.ID, string(b), nanos(t.Created))
	return err
}

// DeleteTarget implements notify.Store.
func (s *Store) DeleteTarget(ctx context.Context, id string) error {
	res, err := s.set.ExecContext(ctx, s.q(`DELETE FROM notify_targets WHERE id = $1`), id)
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
	rows, err := s.setR.QueryContext(ctx, `SELECT body FROM notify_targets ORDER BY created, id`)
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
func (s *Store) AddLink(ctx context.Context, l notify.Link) error { return s.addLink(ctx, nil, l) }

// addLink stores a link in tx (on the writer itself when tx is nil).
func (s *Store) addLink(ctx context.Context, tx *sql.Tx, l notify.Link) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, tx, insertLink, l.Hash, string(b), nanos(l.Expires))
	return err
}

// Link implements notify.Store.
func (s *Store) Link(ctx context.Context, hash string) (notify.Link, error) {
	var b string
	var used int64
	err := s.queryRow(ctx, nil, `SELECT body, used FROM notify_links WHERE hash = $1`, hash).Scan(&b, &used)
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
	var n int64
	err := s.durably(ctx, func(db execer) error {
		res, err := db.ExecContext(ctx, s.q(`UPDATE notify_links SET used = $1 WHERE hash = $2 AND used = 0`), nanos(now), hash)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// durably runs fn so that what it writes survives a power cut once it returns. On PostgreSQL
// every commit does. SQLite's outbox file commits without waiting for the disk (see
// outboxTx); a link's use is a person's answer, so its commit waits for it (synchronous=FULL
// on the writer connection for this statement, as it was before).
func (s *Store) durably(ctx context.Context, fn func(execer) error) error {
	if s.dialect != SQLite {
		return fn(s.db)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var was int
	if err := conn.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&was); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = FULL`); err != nil {
		return err
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = `+strconv.Itoa(was)); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return fn(conn)
}

// UnuseLink implements notify.Store.
func (s *Store) UnuseLink(ctx context.Context, hash string) error {
	return s.durably(ctx, func(db execer) error {
		_, err := db.ExecContext(ctx, s.q(`UPDATE notify_links SET used = 0 WHERE hash = $1`), hash)
		return err
	})
}

// Secret implements notify.Store: insert-if-absent, then read, so instances racing to make
// the first value all read the one that was stored.
func (s *Store) Secret(ctx context.Context, name string, make func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := s.set.QueryRowContext(ctx, s.q(`SELECT value FROM notify_secrets WHERE name = $1`), name).Scan(&v)
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
	if _, err := s.set.ExecContext(ctx, s.q(`INSERT INTO notify_secrets(name, value) VALUES($1, $2) ON CONFLICT (name) DO NOTHING`), name, nv); err != nil {
		return nil, err
	}
	err = s.set.QueryRowContext(ctx, s.q(`SELECT value FROM notify_secrets WHERE name = $1`), name).Scan(&v)
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

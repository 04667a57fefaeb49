package notifysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
)

// The outbox: what is due, leased, sent, skipped, and which message announced what.

// Enqueue implements notify.Store.
func (s *Store) Enqueue(ctx context.Context, ds []notify.Delivery) (int, error) {
	added, err := s.enqueue(ctx, "", time.Time{}, 0, ds)
	return len(added), err
}

// EnqueueClaimed implements notify.Store. The transaction is left open for the caller to
// commit: on SQLite it holds the outbox file's write lock until then, and on PostgreSQL
// another transaction's insert of one of its keys waits on the unique index until it ends,
// then does nothing (ON CONFLICT DO NOTHING) if it committed.
func (s *Store) EnqueueClaimed(ctx context.Context, owner string, now time.Time, lease time.Duration, ds []notify.Delivery) ([]notify.Delivery, func() error, error) {
	tx, ctx, err := s.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	added, err := s.insert(ctx, tx, owner, now, lease, ds)
	if err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return leased(added), tx.Commit, nil
}

// leased is the deliveries of added that insert leased to their owner.
func leased(added []notify.Delivery) []notify.Delivery {
	out := added[:0]
	for _, d := range added {
		if d.Attempts > 0 {
			out = append(out, d)
		}
	}
	return out
}

// enqueue stores the new deliveries and their links in one transaction and returns the ones
// it stored; with an owner, those due at now are leased to it (Attempts 1).
func (s *Store) enqueue(ctx context.Context, owner string, now time.Time, lease time.Duration, ds []notify.Delivery) (added []notify.Delivery, err error) {
	err = s.outboxTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		added, err = s.insert(ctx, tx, owner, now, lease, ds)
		return err
	})
	return added, err
}

func (s *Store) insert(ctx context.Context, tx *sql.Tx, owner string, now time.Time, lease time.Duration, ds []notify.Delivery) ([]notify.Delivery, error) {
	added := make([]notify.Delivery, 0, len(ds))
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
		var id int64 // scanned apart: &d.ID would move every d to the heap
		err = s.queryRow(ctx, tx, insertDelivery, d.Key, d.Target, d.Wait.ID, string(d.Event), string(w), nanos(d.Due), string(d.Status), nanos(d.Created), by, until, d.Attempts).Scan(&id)
		d.ID = id
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

// outboxTx runs fn in a transaction on the outbox's database. On SQLite that is a file of its
// own (see sqlite.DB.Notify), which commits with synchronous=NORMAL: its commits do not wait
// for the disk, and they queue on its own writer, never on the one that ingest and the gate
// commit on. A process that crashes loses none of it (the WAL is written at commit); a power
// cut may lose the last of it, and all of that is made again at the next start: the open
// waits are announced again (same keys) and the ends of sent announcements again (Unended),
// with the same idempotency keys.
//
// On SQLite the transaction and its statements run without ctx's cancellation: they are
// local and short (a stop waits milliseconds for them), and the driver watches a cancellable
// context with a goroutine per statement, which in a burst was thousands of goroutines and
// their garbage for the one writer's rows.
func (s *Store) outboxTx(ctx context.Context, fn func(context.Context, *sql.Tx) error) error {
	tx, ctx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// begin starts a transaction on the outbox's database, and returns the context its
// statements run with (see outboxTx).
func (s *Store) begin(ctx context.Context) (*sql.Tx, context.Context, error) {
	if s.dialect == SQLite {
		ctx = context.WithoutCancel(ctx)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	return tx, ctx, err
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
	err = s.outboxTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out = nil
		rows, err := s.query(ctx, tx, claimDue, owner, nanos(now.Add(lease)), nanos(now), limit)
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
	err := s.outboxTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
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
	res, err := s.exec(ctx, tx, finishDelivery, string(d.Status), d.Error, nanos(d.Due), nanos(d.Done), d.ID, owner)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	if d.Remote == "" || d.Status != notify.Sent {
		return true, nil
	}
	_, err = s.exec(ctx, tx, upsertRemote,
		d.Target, d.Wait.ID, d.Remote, nanos(d.Done))
	return err == nil, err
}

// Remote implements notify.Store: Remotes for one wait.
func (s *Store) Remote(ctx context.Context, target, waitID string) (string, int, int, error) {
	as, err := s.Remotes(ctx, target, []string{waitID})
	if err != nil {
		return "", 0, 0, err
	}
	a, ok := as[waitID]
	switch {
	case !ok:
		return "", 0, 0, errs.Errorf(errs.NotFound, "no message announced wait %q on %q", waitID, target)
	case a.Pending:
		return "", 0, 0, errs.Errorf(errs.Conflict, "the announcement of wait %q on %q is still being sent", waitID, target)
	}
	return a.Remote, a.Waits, a.Open, nil
}

// Remotes implements notify.Store. The messages and the pending announcements are read in one
// statement, so one snapshot: read apart, an announcement recorded between the two reads
// looked neither sent nor pending, and its end was skipped. Then one statement reads, for
// every message found, the waits it announced and which of them have their end stored.
//
// The pending announcements are found by their keys, one row each through the keys' unique
// index: by wait id, every target's deliveries of the wait were read to keep this target's
// (at the end of a burst, three rows read for each one kept, with three targets).
func (s *Store) Remotes(ctx context.Context, target string, waitIDs []string) (map[string]notify.Announcement, error) {
	out := map[string]notify.Announcement{}
	var remotes []string
	for chunk := range slices.Chunk(waitIDs, maxIn) {
		keys := make([]string, len(chunk))
		for i, id := range chunk {
			keys[i] = notify.DeliveryKey(target, id, notify.Began)
		}
		args, in := inList([]any{target}, chunk)
		args, inKeys := inList(args, keys)
		rows, err := s.r.QueryContext(ctx, s.q(`SELECT wait_id, remote, 0 FROM notify_remote WHERE target = $1 AND wait_id IN (`+in+`)
			UNION ALL
			SELECT wait_id, '', 1 FROM notify_outbox WHERE key IN (`+inKeys+`) AND status = 'pending'`), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, remote string
			var pending int
			if err := rows.Scan(&id, &remote, &pending); err != nil {
				rows.Close()
				return nil, err
			}
			a := out[id]
			if remote != "" {
				a.Remote, a.Pending = remote, false
				if remote == notify.DeliveryKey(target, id, notify.Began) {
					// A message of its own (a webhook's, a push): it announced this wait alone,
					// and nothing else keeps it.
					a.Waits, a.Open = 1, 0
				} else {
					remotes = append(remotes, remote)
				}
			} else if pending > 0 && a.Remote == "" {
				a.Pending = true
			}
			out[id] = a
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for id, a := range out {
		if a.Remote == "" && !a.Pending {
			delete(out, id)
		}
	}
	slices.Sort(remotes)
	remotes = slices.Compact(remotes)
	type member struct {
		wait  string
		ended bool
	}
	members := map[string][]member{}
	for chunk := range slices.Chunk(remotes, maxIn) {
		args, in := inList([]any{target}, chunk)
		rows, err := s.r.QueryContext(ctx, s.q(`SELECT r.remote, r.wait_id, CASE WHEN EXISTS (
				SELECT 1 FROM notify_outbox e WHERE e.key = r.target || '|' || r.wait_id || '|ended') THEN 1 ELSE 0 END
			FROM notify_remote r WHERE r.target = $1 AND r.remote IN (`+in+`)`), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var remote, wait string
			var ended int
			if err := rows.Scan(&remote, &wait, &ended); err != nil {
				rows.Close()
				return nil, err
			}
			members[remote] = append(members[remote], member{wait, ended == 1})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for id, a := range out {
		if a.Remote == "" || a.Waits > 0 {
			continue
		}
		for _, m := range members[a.Remote] {
			a.Waits++
			if m.wait != id && !m.ended {
				a.Open++
			}
		}
		out[id] = a
	}
	return out, nil
}

// maxIn is the most values one "IN (…)" lists: under every database's parameter limit.
const maxIn = 500

// inList appends vals to args and returns the placeholders that name them. Their number is
// rounded up to a power of two (the last value repeated), so a statement has a few texts
// whatever the batch's size, and stays among the prepared ones.
func inList(args []any, vals []string) ([]any, string) {
	n := 1
	for n < len(vals) {
		n *= 2
	}
	marks := make([]string, n)
	for i := range n {
		args = append(args, vals[min(i, len(vals)-1)])
		marks[i] = "$" + strconv.Itoa(len(args))
	}
	return args, strings.Join(marks, ", ")
}

// Skip implements notify.Store: one statement for all the waits (an announcement may end
// hundreds at once), in chunks that keep under every database's parameter limit.
func (s *Store) Skip(ctx context.Context, waitIDs []string, ev notify.Event, now time.Time, why string) (keys []string, err error) {
	s.prepareSkip(ctx, waitIDs)
	err = s.outboxTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		keys, err = s.skip(ctx, tx, waitIDs, ev, now, why)
		return err
	})
	return keys, err
}

// EndClaimed implements notify.Store: the end of a burst's waits is one commit, not two.
func (s *Store) EndClaimed(ctx context.Context, owner string, now time.Time, lease time.Duration, waitIDs []string, ev notify.Event, why string,
	then func(skipped []string) []notify.Delivery) ([]notify.Delivery, error) {
	var added []notify.Delivery
	s.prepareSkip(ctx, waitIDs)
	err := s.outboxTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		keys, err := s.skip(ctx, tx, waitIDs, ev, now, why)
		if err != nil {
			return err
		}
		added, err = s.insert(ctx, tx, owner, now, lease, then(keys))
		return err
	})
	if err != nil {
		return nil, err
	}
	return leased(added), nil
}

// skipSQL is skip's statement for a chunk of waits, and its arguments.
func skipSQL(chunk []string, ev notify.Event, now time.Time, why string) (string, []any) {
	args, in := inList([]any{why, nanos(now), string(ev)}, chunk)
	return `UPDATE notify_outbox SET status = 'skipped', error = $1, done = $2
			WHERE wait_id IN (` + in + `) AND event = $3 AND status = 'pending' AND lease_until <= $2 RETURNING key`, args
}

// prepareSkip prepares, on SQLite, the statements skip will run for waitIDs, before the
// transaction that runs them: within it the writer's one connection is taken, so a statement
// not prepared before was parsed and planned anew on every end of a wait (one "IN (…)" text
// per chunk size, so a handful in all, kept from then on).
func (s *Store) prepareSkip(ctx context.Context, waitIDs []string) {
	if s.stmts == nil {
		return
	}
	for chunk := range slices.Chunk(waitIDs, maxIn) {
		q, _ := skipSQL(chunk, "", time.Time{}, "")
		s.stmts.get(ctx, s.q(q), false)
	}
}

// skip is Skip in tx.
func (s *Store) skip(ctx context.Context, tx *sql.Tx, waitIDs []string, ev notify.Event, now time.Time, why string) ([]string, error) {
	var keys []string
	for chunk := range slices.Chunk(waitIDs, maxIn) {
		q, args := skipSQL(chunk, ev, now, why)
		rows, err := s.query(ctx, tx, q, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, err
			}
			keys = append(keys, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return keys, nil
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

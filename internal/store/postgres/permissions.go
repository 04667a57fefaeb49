package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/permissions"
)

// permissionStore implements permissions.Store: the relayed ACP permission requests live in the
// database, so a person answering on any instance answers the proxy polling any other.
type permissionStore struct {
	pool *dbPool
	note *notifier
}

var _ permissions.Store = (*permissionStore)(nil)

// permissionsSchema: requests by (stream, id), their bodies the domain values; answers queued
// for proxies in the order given. permissions_clock orders writes, as approvals_clock does.
const permissionsSchema = `
CREATE TABLE permissions_clock (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	n bigint NOT NULL
);
INSERT INTO permissions_clock(n) VALUES (0);
CREATE TABLE permission_requests (
	stream text COLLATE "C" NOT NULL,
	id text COLLATE "C" NOT NULL,
	changed bigint NOT NULL,
	resolved_ns bigint,
	body json NOT NULL,
	PRIMARY KEY (stream, id)
);
CREATE INDEX permission_requests_changed ON permission_requests(changed);
CREATE INDEX permission_requests_resolved ON permission_requests(resolved_ns) WHERE resolved_ns IS NOT NULL;
CREATE TABLE permission_answers (
	n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	stream text COLLATE "C" NOT NULL,
	body json NOT NULL
);
CREATE INDEX permission_answers_stream ON permission_answers(stream, n);
`

// maxResolvedPermissions is how many ended requests are kept, as in memory.
const maxResolvedPermissions = 200

// Permissions is the store of relayed ACP permission requests.
func (db *DB) Permissions() permissions.Store { return db.perms }

// write runs fn in a transaction numbered in the permissions stream, and notifies stream's
// change when fn reports one.
func (s *permissionStore) write(ctx context.Context, stream string, fn func(tx pgx.Tx, n int64) (bool, error)) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var n int64
		if err := tx.QueryRow(ctx, `UPDATE permissions_clock SET n = n + 1 RETURNING n`).Scan(&n); err != nil {
			return err
		}
		changed, err := fn(tx, n)
		if err != nil || !changed {
			return err
		}
		return s.note.send(ctx, tx, streamPermissions, uint64(n), Note{Kind: NotePermissions, ID: stream})
	})
}

// Offer stores r in place of an earlier offer, if check allows it. A first offer is inserted
// only if there is still none, so of two first offers at once the second is checked against
// the first instead of overwriting it.
func (s *permissionStore) Offer(ctx context.Context, r permissions.Request, check func(old *permissions.Request) error) error {
	return s.write(ctx, r.Stream, func(tx pgx.Tx, n int64) (bool, error) {
		for range 2 {
			old, err := lockRequest(ctx, tx, r.Stream, r.ID)
			if err != nil {
				return false, err
			}
			if err := check(old); err != nil {
				return false, err
			}
			if old != nil {
				_, err = tx.Exec(ctx, `UPDATE permission_requests SET changed=$3, resolved_ns=NULL, body=$4 WHERE stream=$1 AND id=$2`,
					r.Stream, string(r.ID), n, mustJSON(r))
				return err == nil, err
			}
			tag, err := tx.Exec(ctx, `INSERT INTO permission_requests(stream, id, changed, resolved_ns, body) VALUES($1,$2,$3,NULL,$4)
				ON CONFLICT(stream, id) DO NOTHING`, r.Stream, string(r.ID), n, mustJSON(r))
			if err != nil || tag.RowsAffected() == 1 {
				return err == nil, err
			}
			// Offered by another instance meanwhile: check against that offer.
		}
		return false, errs.Errorf(errs.Conflict, "permission request %s on stream %q is being offered concurrently", r.ID, r.Stream)
	})
}

// lockRequest reads a request for update; nil when there is none.
func lockRequest(ctx context.Context, tx pgx.Tx, stream string, id json.RawMessage) (*permissions.Request, error) {
	var body []byte
	err := tx.QueryRow(ctx, `SELECT body FROM permission_requests WHERE stream=$1 AND id=$2 FOR UPDATE`, stream, string(id)).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r, err := decode[permissions.Request](body)
	return &r, err
}

// Resolve records that a request ended, and forgets the oldest ended ones past the bound.
func (s *permissionStore) Resolve(ctx context.Context, stream string, id json.RawMessage, by string, o *acp.PermissionOutcome, at time.Time) (bool, error) {
	done := false
	err := s.write(ctx, stream, func(tx pgx.Tx, n int64) (bool, error) {
		r, err := lockRequest(ctx, tx, stream, id)
		if err != nil || r == nil || r.ResolvedBy != "" {
			return false, err
		}
		r.ResolvedBy, r.Outcome, r.Resolved, r.Answered = by, o, at, false
		if _, err := tx.Exec(ctx, `UPDATE permission_requests SET changed=$3, resolved_ns=$4, body=$5 WHERE stream=$1 AND id=$2`,
			stream, string(id), n, at.UnixNano(), mustJSON(r)); err != nil {
			return false, err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM permission_requests WHERE resolved_ns IS NOT NULL AND (stream, id) NOT IN (
			SELECT stream, id FROM permission_requests WHERE resolved_ns IS NOT NULL ORDER BY resolved_ns DESC, changed DESC LIMIT $1)`,
			maxResolvedPermissions); err != nil {
			return false, err
		}
		done = true
		return true, nil
	})
	return done && err == nil, err
}

// Answer marks the request answered and queues a, if check allows it. The row lock makes the
// first of two instances answering at once the only one.
func (s *permissionStore) Answer(ctx context.Context, stream string, id json.RawMessage, a permissions.Answer, check func(*permissions.Request) error) error {
	return s.write(ctx, stream, func(tx pgx.Tx, n int64) (bool, error) {
		r, err := lockRequest(ctx, tx, stream, id)
		if err != nil {
			return false, err
		}
		if err := check(r); err != nil {
			return false, err
		}
		r.Answered = true
		if _, err := tx.Exec(ctx, `UPDATE permission_requests SET changed=$3, body=$4 WHERE stream=$1 AND id=$2`,
			stream, string(id), n, mustJSON(r)); err != nil {
			return false, err
		}
		_, err = tx.Exec(ctx, `INSERT INTO permission_answers(stream, body) VALUES($1,$2)`, stream, mustJSON(a))
		return err == nil, err
	})
}

// Take removes and returns stream's queued answers; two polls at once each get different ones.
func (s *permissionStore) Take(ctx context.Context, stream string) ([]permissions.Answer, error) {
	return many[permissions.Answer](ctx, s.pool, `WITH taken AS (DELETE FROM permission_answers WHERE stream=$1 RETURNING n, body)
		SELECT body FROM taken ORDER BY n`, stream)
}

// List returns the requests kept.
func (s *permissionStore) List(ctx context.Context) ([]permissions.Request, error) {
	return many[permissions.Request](ctx, s.pool, `SELECT body FROM permission_requests`)
}

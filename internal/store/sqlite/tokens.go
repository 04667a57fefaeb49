package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/tokens"
)

// tokensSchema keeps the per-agent tokens (hashes only) and which token submitted which
// approval request. Times are Unix nanoseconds; 0 is "never".
const tokensSchema = `
CREATE TABLE agent_tokens (
	name TEXT PRIMARY KEY,
	scope TEXT NOT NULL,
	hash TEXT NOT NULL UNIQUE,
	created INTEGER NOT NULL,
	expires INTEGER NOT NULL DEFAULT 0,
	last_used INTEGER NOT NULL DEFAULT 0,
	revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE token_requests (
	request_id TEXT PRIMARY KEY,
	token TEXT NOT NULL
);
`

// submitterInBody moves who submitted each approval request out of token_requests, which was
// written after the request (a stop in between lost it), into the request's own body
// (SubmittedBy), written with it.
const submitterInBody = `
UPDATE approval_requests SET body = CAST(json_set(CAST(body AS TEXT), '$.submittedBy', 'token:' || t.token) AS BLOB)
	FROM token_requests t WHERE t.request_id = approval_requests.id;
DROP TABLE token_requests;
`

// tokenStore implements tokens.Store on the DB's connections.
type tokenStore struct {
	w *sql.DB // the DB's writer
	r *readDB
	f *faults // the DB's storage faults
}

var _ tokens.Store = (*tokenStore)(nil)

// Tokens is the store of per-agent tokens.
func (db *DB) Tokens() tokens.Store { return &tokenStore{w: db.w, r: db.r, f: db.faults} }

const tokenColumns = `name, scope, hash, created, expires, last_used, revoked`

func (s *tokenStore) Create(ctx context.Context, t tokens.Token) (err error) {
	defer func() { err = s.f.note(err) }()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The writer's transactions are IMMEDIATE: no other writer runs between this check and
	// the insert.
	var revoked int64
	err = tx.QueryRowContext(ctx, `SELECT revoked FROM agent_tokens WHERE name = ?`, t.Name).Scan(&revoked)
	switch {
	case err == nil && revoked == 0:
		return errs.Errorf(errs.Conflict, "a token named %q exists; revoke it first or pick another name", t.Name)
	case err == nil:
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_tokens WHERE name = ?`, t.Name); err != nil {
			return err
		}
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO agent_tokens(`+tokenColumns+`) VALUES(?,?,?,?,?,?,?)`,
		t.Name, string(t.Scope), t.Hash, nanos(t.Created), nanos(t.Expires), nanos(t.LastUsed), nanos(t.Revoked))
	if err != nil {
		return err
	}
	return tx.Commit()
}

func (s *tokenStore) List(ctx context.Context) ([]tokens.Token, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+tokenColumns+` FROM agent_tokens ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tokens.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ByHash reads on a reader: in WAL mode each read sees every commit made before it began, so
// a revocation counts from the next request on.
func (s *tokenStore) ByHash(ctx context.Context, hash string) (tokens.Token, error) {
	t, err := scanToken(s.r.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM agent_tokens WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return tokens.Token{}, errs.New(errs.NotFound, "no such token")
	}
	return t, err
}

// ByName reads on a reader, like ByHash.
func (s *tokenStore) ByName(ctx context.Context, name string) (tokens.Token, error) {
	t, err := scanToken(s.r.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM agent_tokens WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return tokens.Token{}, errs.Errorf(errs.NotFound, "no token named %q", name)
	}
	return t, err
}

func (s *tokenStore) Revoke(ctx context.Context, name string, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE agent_tokens SET revoked = CASE WHEN revoked = 0 THEN ? ELSE revoked END WHERE name = ?`, nanos(at), name)
	if err != nil {
		return s.f.note(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errs.Errorf(errs.NotFound, "no token named %q", name)
	}
	return nil
}

func (s *tokenStore) Used(ctx context.Context, name string, at time.Time) error {
	_, err := s.w.ExecContext(ctx, `UPDATE agent_tokens SET last_used = ? WHERE name = ? AND last_used < ?`, nanos(at), name, nanos(at))
	return s.f.note(err)
}

// nanos is t in Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos is nanos' inverse, in UTC.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func scanToken(row interface{ Scan(...any) error }) (tokens.Token, error) {
	var t tokens.Token
	var scope string
	var created, expires, used, revoked int64
	if err := row.Scan(&t.Name, &scope, &t.Hash, &created, &expires, &used, &revoked); err != nil {
		return tokens.Token{}, err
	}
	t.Scope = tokens.Scope(scope)
	t.Created, t.Expires, t.LastUsed, t.Revoked = fromNanos(created), fromNanos(expires), fromNanos(used), fromNanos(revoked)
	return t, nil
}

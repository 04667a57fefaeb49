package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/tokens"
)

// tokensSchema keeps the per-agent tokens (hashes only) and which token submitted which
// approval request. Times are Unix nanoseconds; 0 is "never".
const tokensSchema = `
CREATE TABLE agent_tokens (
	name text COLLATE "C" PRIMARY KEY,
	scope text NOT NULL,
	hash text COLLATE "C" NOT NULL UNIQUE,
	created_ns bigint NOT NULL,
	expires_ns bigint NOT NULL DEFAULT 0,
	last_used_ns bigint NOT NULL DEFAULT 0,
	revoked_ns bigint NOT NULL DEFAULT 0
);
CREATE TABLE token_requests (
	request_id text COLLATE "C" PRIMARY KEY,
	token text NOT NULL
);
`

// submitterInBody moves who submitted each approval request out of token_requests, which was
// written after the request (a stop in between lost it), into the request's own body
// (SubmittedBy), written with it.
const submitterInBody = `
UPDATE approval_requests a SET body = (a.body::jsonb || jsonb_build_object('submittedBy', 'token:' || t.token))::json
	FROM token_requests t WHERE t.request_id = a.id;
DROP TABLE token_requests;
`

// tokenStore implements tokens.Store. Every instance reads the same rows, so a revocation on
// one is seen by the others at their next lookup.
type tokenStore struct{ pool *dbPool }

var _ tokens.Store = (*tokenStore)(nil)

// Tokens is the store of per-agent tokens.
func (db *DB) Tokens() tokens.Store { return &tokenStore{pool: db.pool} }

const tokenColumns = `name, scope, hash, created_ns, expires_ns, last_used_ns, revoked_ns`

// Create forgets a revoked token of the same name and inserts the new one; of two creates of
// one name at once, the second waits for the first and then finds the name taken.
func (s *tokenStore) Create(ctx context.Context, t tokens.Token) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM agent_tokens WHERE name = $1 AND revoked_ns <> 0`, t.Name); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO agent_tokens(`+tokenColumns+`) VALUES($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (name) DO NOTHING`,
			t.Name, string(t.Scope), t.Hash, nanos(t.Created), nanos(t.Expires), nanos(t.LastUsed), nanos(t.Revoked))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errs.Errorf(errs.Conflict, "a token named %q exists; revoke it first or pick another name", t.Name)
		}
		return nil
	})
}

func (s *tokenStore) List(ctx context.Context) ([]tokens.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+tokenColumns+` FROM agent_tokens ORDER BY name`)
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

func (s *tokenStore) ByHash(ctx context.Context, hash string) (tokens.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM agent_tokens WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return tokens.Token{}, errs.New(errs.NotFound, "no such token")
	}
	return t, err
}

func (s *tokenStore) ByName(ctx context.Context, name string) (tokens.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM agent_tokens WHERE name = $1`, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return tokens.Token{}, errs.Errorf(errs.NotFound, "no token named %q", name)
	}
	return t, err
}

func (s *tokenStore) Revoke(ctx context.Context, name string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE agent_tokens SET revoked_ns = CASE WHEN revoked_ns = 0 THEN $1 ELSE revoked_ns END WHERE name = $2`, nanos(at), name)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errs.Errorf(errs.NotFound, "no token named %q", name)
	}
	return nil
}

func (s *tokenStore) Used(ctx context.Context, name string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE agent_tokens SET last_used_ns = $1 WHERE name = $2 AND last_used_ns < $1`, nanos(at), name)
	return err
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

func scanToken(row pgx.Row) (tokens.Token, error) {
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

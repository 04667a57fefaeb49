package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/permissions"
)

// permissionStreams binds each proxy stream to the token that first used it, so that another
// token can neither re-offer its requests, end them, nor take their answers (issue 25, item 14).
// Written to run again harmlessly, as tests that roll the version back do.
const permissionStreams = `
CREATE TABLE IF NOT EXISTS permission_streams (
	stream text COLLATE "C" PRIMARY KEY,
	owner text NOT NULL,
	used_ns bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS permission_streams_used ON permission_streams(used_ns);
`

// Claim binds stream to owner unless it is bound, and returns the owner it is bound to. The
// upsert touches the row only for its own owner; when another owner holds it nothing comes
// back, and a second statement (a new snapshot, which sees a binding committed meanwhile) reads
// who does.
func (s *permissionStore) Claim(ctx context.Context, stream, owner string, at time.Time) (string, error) {
	var got string
	var inserted bool
	err := s.pool.QueryRow(ctx, `INSERT INTO permission_streams(stream, owner, used_ns) VALUES($1,$2,$3)
		ON CONFLICT(stream) DO UPDATE SET used_ns = GREATEST(permission_streams.used_ns, excluded.used_ns)
		WHERE permission_streams.owner = excluded.owner
		RETURNING owner, xmax = 0`, stream, owner, at.UnixNano()).Scan(&got, &inserted)
	if errors.Is(err, pgx.ErrNoRows) {
		err = s.pool.QueryRow(ctx, `SELECT owner FROM permission_streams WHERE stream=$1`, stream).Scan(&got)
		return got, err
	}
	if err != nil {
		return "", err
	}
	if inserted {
		// A new stream: forget the bindings given up (idle, with no requests kept). Done here so
		// a token inventing stream names pays for the clean-up it causes.
		_, err = s.pool.Exec(ctx, `DELETE FROM permission_streams p WHERE used_ns < $1
			AND NOT EXISTS (SELECT 1 FROM permission_requests r WHERE r.stream = p.stream)`,
			at.Add(-permissions.StreamIdle).UnixNano())
	}
	return got, err
}

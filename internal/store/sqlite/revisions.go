package sqlite

import (
	"context"
	"fmt"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
)

// revisionsSchema is schema step 4: revisions may be deltas (format) and carry the time they
// were made (at, Unix milliseconds) for retention. Rows written before are whole plans; their
// time is read out of their JSON once, here.
const revisionsSchema = `
ALTER TABLE plan_revisions ADD COLUMN format INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plan_revisions ADD COLUMN at INTEGER NOT NULL DEFAULT 0;
UPDATE plan_revisions SET at = COALESCE(CAST(unixepoch(json_extract(CAST(body AS TEXT), '$.updated'), 'subsec') * 1000 AS INTEGER), 0);
`

// putRevisions stores a batch's revisions in tx, each as a delta against the one before it
// when that one is known (package delta), and returns the batch, to hand its revisions to the
// cache once tx commits.
func (s *plansStore) putRevisions(ctx context.Context, tx *rawConn, revs []*plans.Plan, seq uint64) (*delta.Batch, error) {
	// The bodies are numbered on from the last one: the batch holds the file's write lock.
	var id int64
	if err := tx.queryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM revision_bodies`, nil, &id); err != nil {
		return nil, fmt.Errorf("store revisions: %w", err)
	}
	bodies, keys := make([]any, 0, 4*len(revs)), make([]any, 0, 4*len(revs))
	// The rows go out several to a statement, once encoded. A base that neither the batch nor
	// the cache holds is read back from the rows; the rows encoded so far go in first, so the
	// read sees every revision before it.
	write := func() error {
		err := s.stmt.insertRevisionBody.exec(ctx, tx, bodies)
		if err == nil {
			err = s.stmt.insertRevisionKey.exec(ctx, tx, keys)
		}
		bodies, keys = bodies[:0], keys[:0]
		if err != nil {
			return fmt.Errorf("store revisions: %w", err)
		}
		return nil
	}
	b := s.cache.Batch(func(k plans.PlanKey, revision int) (delta.Fields, error) {
		if err := write(); err != nil {
			return nil, err
		}
		rows, err := tx.query(ctx, sqlRebuild, k.SessionID, k.PlanID, revision)
		if err != nil {
			return nil, err
		}
		return replayTo(rows, revision)
	})
	for _, p := range revs {
		p.Seq = seq
		format, body, err := b.Encode(p)
		if err != nil {
			return nil, err
		}
		id++
		bodies = append(bodies, id, body, format, p.Updated.UnixMilli())
		keys = append(keys, p.SessionID, p.ID, p.Revision, id)
	}
	if err := write(); err != nil {
		return nil, err
	}
	return b, nil
}

// sqlRebuild reads the rows of a plan's revision ?3: from the last whole row at or before it.
const sqlRebuild = `SELECT revision, format, body FROM plan_revisions
	WHERE session_id = ?1 AND plan_id = ?2 AND revision <= ?3 AND revision >= (
		SELECT MAX(revision) FROM plan_revisions WHERE session_id = ?1 AND plan_id = ?2 AND revision <= ?3 AND format = 0)
	ORDER BY revision`

// rebuild reads one revision of a plan, from the last whole row at or before it; nil when the
// plan has no such revision.
func rebuild(ctx context.Context, q querier, k plans.PlanKey, revision int) (delta.Fields, error) {
	rows, err := q.QueryContext(ctx, sqlRebuild, k.SessionID, k.PlanID, revision)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return replayTo(rows, revision)
}

// replayTo rebuilds the rows of sqlRebuild and returns the one of revision.
func replayTo(rows rowsScanner, revision int) (delta.Fields, error) {
	var f delta.Fields
	err := replay(rows, func(rev int, next delta.Fields) error {
		if rev == revision {
			f = next
		}
		return nil
	})
	return f, err
}

// rowsScanner is the rows of a query: *sql.Rows, or a batch's (rawRows).
type rowsScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// replay rebuilds each row of (revision, format, body), in revision order, and hands it on.
func replay(rows rowsScanner, each func(revision int, f delta.Fields) error) error {
	var r delta.Replay
	for rows.Next() {
		var (
			rev, format int
			body        []byte
		)
		if err := rows.Scan(&rev, &format, &body); err != nil {
			return err
		}
		f, err := r.Next(rev, format, body)
		if err != nil {
			return err
		}
		if err := each(rev, f); err != nil {
			return err
		}
	}
	return rows.Err()
}

// History lists all revisions of a plan, oldest first.
func (s *plansStore) History(ctx context.Context, sessionID, planID string) ([]plans.Revision, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT revision, format, body FROM plan_revisions
		WHERE session_id=? AND plan_id=? ORDER BY revision`, sessionID, planID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []plans.Revision
	err = replay(rows, func(_ int, f delta.Fields) error {
		r, err := f.Revision()
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

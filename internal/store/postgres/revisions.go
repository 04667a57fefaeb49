package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
)

// revisionDeltas is the schema step that lets a revision be stored as a delta against the one
// before it (format, package delta) and gives each row the time it was made (at), which a
// delta's body may not carry. Rows written before are whole plans (format 0); their time is
// read out of their JSON once, here. It may run again on a database that has it (a test that
// steps the version back runs every later step again), so it adds only what is missing.
const revisionDeltas = `
ALTER TABLE plan_revisions ADD COLUMN IF NOT EXISTS format smallint NOT NULL DEFAULT 0;
ALTER TABLE plan_revisions ADD COLUMN IF NOT EXISTS at timestamptz;
UPDATE plan_revisions SET at = (body->>'updated')::timestamptz WHERE at IS NULL;
ALTER TABLE plan_revisions ALTER COLUMN at SET NOT NULL;
`

// putRevisions encodes a commit's revisions, each as a delta against the one before it when
// that one is known, and queues their rows in b. The batch hands its revisions to the cache
// once the transaction commits.
func (s *plansStore) putRevisions(ctx context.Context, tx pgx.Tx, b *pgx.Batch, revs []*plans.Plan, seq uint64) (*delta.Batch, error) {
	enc := s.cache.Batch(func(k plans.PlanKey, revision int) (delta.Fields, error) { return rebuild(ctx, tx, k, revision) })
	for _, p := range revs {
		p.Seq = seq
		format, row, err := enc.Encode(p)
		if err != nil {
			return nil, err
		}
		b.Queue(`INSERT INTO plan_revisions(session_id, plan_id, revision, body, format, at) VALUES($1,$2,$3,$4,$5,$6)`,
			p.SessionID, p.ID, p.Revision, row, format, p.Updated)
	}
	return enc, nil
}

// rebuild reads one revision of a plan, from the last whole row at or before it; nil when the
// plan has no such revision.
func rebuild(ctx context.Context, q querier, k plans.PlanKey, revision int) (delta.Fields, error) {
	rows, err := q.Query(ctx, `SELECT revision, format, body FROM plan_revisions
		WHERE session_id = $1 AND plan_id = $2 AND revision <= $3 AND revision >= (
			SELECT MAX(revision) FROM plan_revisions WHERE session_id = $1 AND plan_id = $2 AND revision <= $3 AND format = 0)
		ORDER BY revision`, k.SessionID, k.PlanID, revision)
	if err != nil {
		return nil, err
	}
	var f delta.Fields
	err = replay(rows, func(rev int, next delta.Fields) {
		if rev == revision {
			f = next
		}
	})
	return f, err
}

// replay rebuilds each row of (revision, format, body), in revision order, and hands it on.
func replay(rows pgx.Rows, each func(revision int, f delta.Fields)) error {
	defer rows.Close()
	var r delta.Replay
	for rows.Next() {
		var (
			rev    int
			format int16
			body   []byte
		)
		if err := rows.Scan(&rev, &format, &body); err != nil {
			return err
		}
		f, err := r.Next(rev, int(format), body)
		if err != nil {
			return err
		}
		each(rev, f)
	}
	return rows.Err()
}

// History lists all revisions of a plan, oldest first.
func (s *plansStore) History(ctx context.Context, sessionID, planID string) ([]plans.Revision, error) {
	rows, err := s.pool.Query(ctx, `SELECT revision, format, body FROM plan_revisions
		WHERE session_id=$1 AND plan_id=$2 ORDER BY revision`, sessionID, planID)
	if err != nil {
		return nil, err
	}
	var out []plans.Revision
	var decodeErr error
	err = replay(rows, func(_ int, f delta.Fields) {
		r, err := f.Revision()
		if err != nil && decodeErr == nil {
			decodeErr = err
		}
		out = append(out, r)
	})
	if err == nil {
		err = decodeErr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RevisionAt rebuilds one revision from the keyframe at or before it: at most
// delta.KeyframeEvery rows are read, however long the plan's history. A plan's newest revision
// usually comes from the cache, rows unread.
func (s *plansStore) RevisionAt(ctx context.Context, sessionID, planID string, revision int) (plans.Revision, error) {
	k := plans.PlanKey{SessionID: sessionID, PlanID: planID}
	f, ok, err := s.cache.Get(k, revision)
	if err == nil && !ok {
		f, err = rebuild(ctx, s.pool, k, revision)
	}
	if err != nil {
		return plans.Revision{}, err
	}
	if f == nil {
		return plans.Revision{}, fmt.Errorf("%w: plan %q has no revision %d", plans.ErrNotFound, planID, revision)
	}
	return f.Revision()
}

// Prune deletes the revisions r does not keep, in one transaction: per plan, those made before
// now-r.MaxAge and those beyond its r.MaxRevisions newest, never its newest. The oldest revision
// kept is rewritten whole first, since the one its delta was against is going. PostgreSQL's
// autovacuum reuses the space; Pages is always 0.
func (s *plansStore) Prune(ctx context.Context, now time.Time, r plans.Retention) (plans.PruneStats, error) {
	var st plans.PruneStats
	if r.IsZero() {
		return st, nil
	}
	var cutoff *time.Time
	if r.MaxAge > 0 {
		c := now.Add(-r.MaxAge)
		cutoff = &c
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		st = plans.PruneStats{}
		// Revisions are numbered in the order they were made, so the first one at or after the
		// cutoff starts what age keeps.
		rows, err := tx.Query(ctx, `SELECT session_id, plan_id, MIN(revision), MAX(revision),
			MIN(CASE WHEN $1::timestamptz IS NULL OR at >= $1::timestamptz THEN revision END)
			FROM plan_revisions GROUP BY session_id, plan_id`, cutoff)
		if err != nil {
			return err
		}
		cuts := map[plans.PlanKey]int{}
		for rows.Next() {
			var (
				k           plans.PlanKey
				first, last int
				young       *int
			)
			if err := rows.Scan(&k.SessionID, &k.PlanID, &first, &last, &young); err != nil {
				rows.Close()
				return err
			}
			if keep := delta.KeepFrom(first, last, young, r.MaxRevisions); keep > first {
				cuts[k] = keep
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for k, keep := range cuts {
			if err := s.cut(ctx, tx, k, keep, &st); err != nil {
				return fmt.Errorf("prune plan %q: %w", k.PlanID, err)
			}
		}
		return nil
	})
	return st, err
}

// cut rewrites revision keep of plan k whole and deletes the revisions before it.
func (s *plansStore) cut(ctx context.Context, tx pgx.Tx, k plans.PlanKey, keep int, st *plans.PruneStats) error {
	f, err := rebuild(ctx, tx, k, keep)
	if err != nil || f == nil {
		return err // nil: a gap in the numbering, nothing to rewrite against, so leave the plan be
	}
	whole, err := f.Whole()
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE plan_revisions SET format = $1, body = $2
		WHERE session_id = $3 AND plan_id = $4 AND revision = $5`, delta.FormatFull, whole, k.SessionID, k.PlanID, keep); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `DELETE FROM plan_revisions WHERE session_id = $1 AND plan_id = $2 AND revision < $3`,
		k.SessionID, k.PlanID, keep)
	if err != nil {
		return err
	}
	st.Revisions += tag.RowsAffected()
	st.Plans++
	return nil
}

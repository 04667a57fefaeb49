package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/delta"
)

var _ plans.Pruner = (*plansStore)(nil)

// Prune deletes the revisions r does not keep, in one transaction: per plan, those older than
// r.MaxAge and those beyond its r.MaxRevisions newest, never its newest. The oldest revision
// kept is rewritten whole first, since the one its delta was against is going. Then the freed
// pages go back to the file system, if the file was created with incremental vacuum.
func (s *plansStore) Prune(ctx context.Context, now time.Time, r plans.Retention) (st plans.PruneStats, err error) {
	if r.IsZero() {
		return st, nil
	}
	cutoff := int64(math.MinInt64)
	if r.MaxAge > 0 {
		cutoff = now.Add(-r.MaxAge).UnixMilli()
	}
	// What to cut is read from a snapshot, before the write begins: the scan reads every
	// revision's key, and ingest goes on meanwhile. Revisions written since are newer than any
	// cut, so a cut stays right; with MaxRevisions a plan then keeps a few more until the next
	// prune.
	cuts, err := pruneCuts(ctx, s.r, cutoff, r.MaxRevisions)
	if err != nil || len(cuts) == 0 {
		return st, err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return st, err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for k, keep := range cuts {
		f, err := rebuild(ctx, tx, k, keep)
		if err != nil {
			return st, fmt.Errorf("prune plan %q: %w", k.PlanID, err)
		}
		if f == nil {
			continue // a gap in the numbering: nothing to rewrite against, so leave the plan be
		}
		body, err := f.Whole()
		if err != nil {
			return st, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE revision_bodies SET format = ?, body = ? WHERE id = (
			SELECT body_id FROM revision_keys WHERE session_id = ? AND plan_id = ? AND revision = ?)`, delta.FormatFull, body, k.SessionID, k.PlanID, keep); err != nil {
			return st, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM revision_bodies WHERE id IN (
			SELECT body_id FROM revision_keys WHERE session_id = ? AND plan_id = ? AND revision < ?)`, k.SessionID, k.PlanID, keep); err != nil {
			return st, err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM revision_keys WHERE session_id = ? AND plan_id = ? AND revision < ?`,
			k.SessionID, k.PlanID, keep)
		if err != nil {
			return st, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return st, err
		}
		st.Revisions += n
		st.Plans++
	}
	if err := tx.Commit(); err != nil {
		return st, err
	}
	st.Pages, err = vacuumFree(ctx, s.w)
	return st, err
}

// pruneCuts is, for every plan that loses revisions, the oldest revision it keeps.
func pruneCuts(ctx context.Context, q querier, cutoff int64, maxRevisions int) (map[plans.PlanKey]int, error) {
	// Revisions are numbered in the order they were made, so the first one at or after the
	// cutoff starts what age keeps.
	rows, err := q.QueryContext(ctx, `SELECT session_id, plan_id, MIN(revision), MAX(revision),
		MIN(CASE WHEN at >= ? THEN revision END) FROM plan_revisions GROUP BY session_id, plan_id`, cutoff)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cuts := map[plans.PlanKey]int{}
	for rows.Next() {
		var (
			k           plans.PlanKey
			first, last int
			young       sql.NullInt64
		)
		if err := rows.Scan(&k.SessionID, &k.PlanID, &first, &last, &young); err != nil {
			return nil, err
		}
		var y *int
		if young.Valid {
			y = new(int(young.Int64))
		}
		if keep := delta.KeepFrom(first, last, y, maxRevisions); keep > first {
			cuts[k] = keep
		}
	}
	return cuts, rows.Err()
}

// vacuumFree gives the file's free pages back to the file system and returns how many; in a
// file without incremental vacuum it does nothing and they wait to be reused.
func vacuumFree(ctx context.Context, w *sql.DB) (int64, error) {
	var before, after int64
	if err := w.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&before); err != nil {
		return 0, err
	}
	// The pragma frees a page per step; draining its rows runs it to the end.
	rows, err := w.QueryContext(ctx, `PRAGMA incremental_vacuum`)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	if err := w.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&after); err != nil {
		return 0, err
	}
	return before - after, nil
}

// EnableIncrementalVacuum converts a database file created before plandash set incremental
// vacuum (its pages freed by pruning stay in the file) by rewriting it whole with VACUUM. It
// takes as long as copying the file, needs as much free disk again, and holds off writers
// meanwhile, so it is a one-off maintenance step, not something to run on every start.
func (db *DB) EnableIncrementalVacuum(ctx context.Context) error {
	var mode int
	if err := db.w.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return err
	}
	if mode == 2 {
		return nil
	}
	if _, err := db.w.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return err
	}
	_, err := db.w.ExecContext(ctx, `VACUUM`)
	return err
}

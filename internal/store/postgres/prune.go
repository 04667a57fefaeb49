package postgres

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

var _ plans.Pruner = (*plansStore)(nil)

// Prune deletes the revisions r does not keep, in one statement: per plan, those made before
// now-r.MaxAge and those beyond its r.MaxRevisions newest, never its newest. Revisions are stored
// whole here, so nothing kept depends on one deleted. PostgreSQL's autovacuum reuses the space;
// Pages is always 0.
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
	rows, err := s.pool.Query(ctx, `WITH ranked AS (
			SELECT session_id, plan_id, revision, (body->>'updated')::timestamptz AS at,
				MAX(revision) OVER (PARTITION BY session_id, plan_id) AS last
			FROM plan_revisions)
		DELETE FROM plan_revisions p USING ranked r
		WHERE p.session_id = r.session_id AND p.plan_id = r.plan_id AND p.revision = r.revision
			AND r.revision < r.last
			AND (r.at < $1::timestamptz OR ($2::int > 0 AND r.revision <= r.last - $2::int))
		RETURNING p.session_id, p.plan_id`, cutoff, r.MaxRevisions)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	touched := map[plans.PlanKey]bool{}
	for rows.Next() {
		var k plans.PlanKey
		if err := rows.Scan(&k.SessionID, &k.PlanID); err != nil {
			return st, err
		}
		st.Revisions++
		touched[k] = true
	}
	st.Plans = len(touched)
	return st, rows.Err()
}

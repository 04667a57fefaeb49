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

// planRows is what the plans' rows of a commit hold besides their columns, in the order of
// its Plans: each plan's body, its newest revision whole, and its slot of pending revisions.
type planRows struct {
	bodies, slots [][]byte
}

// putRevisions encodes a commit's revisions, each as a delta against the one before it when
// that one is known (package delta), and stores them. A plan whose row the commit writes keeps
// them in its slot (pending.go) until they no longer fit, and then they all go to
// plan_revisions; any other plan's go there at once. It returns the batch, to hand its
// revisions to the cache once the commit is durable, and what the plans' rows hold.
func (s *plansStore) putRevisions(ctx context.Context, t *txn, c *plans.Changes, seq uint64) (*delta.Batch, planRows, error) {
	rows := planRows{bodies: make([][]byte, len(c.Plans)), slots: make([][]byte, len(c.Plans))}
	lists := make([][]byte, len(c.Plans)) // each plan's pending revisions, its old ones first
	olds := make([]int, len(c.Plans))     // how many bytes of each list are old
	at := make(map[plans.PlanKey]int, len(c.Plans))
	for i, p := range c.Plans {
		old, err := t.pending(ctx, p.Key())
		if err != nil {
			return nil, rows, err
		}
		if lists[i], err = newList(old); err != nil {
			return nil, rows, fmt.Errorf("plan %q: %w", p.ID, err)
		}
		at[p.Key()], olds[i] = i, len(lists[i])
	}
	// A base that neither the batch nor the cache holds is read back from the file, which has
	// every revision of the plan before the commit's: nothing of the commit is written before.
	b := s.cache.Batch(func(k plans.PlanKey, revision int) (delta.Fields, error) {
		return rebuild(ctx, t.tx, k, revision)
	})
	args := make([]any, 0, 6*len(c.Revisions))
	row := func(k plans.PlanKey, r stored) {
		args = append(args, k.SessionID, k.PlanID, r.revision, r.body, r.format, r.at)
	}
	for _, p := range c.Revisions {
		p.Seq = seq
		format, body, err := b.Encode(p)
		if err != nil {
			return nil, rows, err
		}
		r := stored{revision: p.Revision, format: format, at: p.Updated.UnixMilli(), body: body}
		if i, ok := at[p.Key()]; ok {
			lists[i] = appendPending(lists[i], r)
		} else {
			row(p.Key(), r)
		}
	}
	for i, p := range c.Plans {
		p.Seq = seq
		// A plan's row is its newest revision, which the batch may have just encoded whole: a
		// revision number names one state of a plan.
		if rows.bodies[i] = b.Whole(p); rows.bodies[i] == nil {
			rows.bodies[i] = delta.EncodePlan(p)
		}
		if rows.slots[i] = slot(lists[i], rows.bodies[i]); rows.slots[i] != nil {
			continue
		}
		list, err := decodePending(lists[i])
		if err != nil {
			return nil, rows, err
		}
		for _, r := range list {
			row(p.Key(), r)
		}
		// An empty slot for the next revisions, unless the commit's own did not fit: a plan
		// revised that often would only carry the slot from commit to commit.
		if len(lists[i])-olds[i] <= slotSize {
			rows.slots[i] = slot(nil, rows.bodies[i])
		}
	}
	if err := s.stmt.insertRevision.exec(ctx, t.tx, args); err != nil {
		return nil, rows, fmt.Errorf("store revisions: %w", err)
	}
	return b, rows, nil
}

// rebuild reads one revision of a plan, from the last whole one at or before it; nil when the
// plan has no such revision.
func rebuild(ctx context.Context, q querier, k plans.PlanKey, revision int) (delta.Fields, error) {
	rows, err := q.QueryContext(ctx, `SELECT 0, revision, format, at, body FROM plan_revisions
		WHERE session_id = ?1 AND plan_id = ?2 AND revision <= ?3 AND revision >= (
			SELECT MAX(revision) FROM plan_revisions WHERE session_id = ?1 AND plan_id = ?2 AND revision <= ?3 AND format = 0)`+
		pendingAfter+` ORDER BY 1, 2`, k.SessionID, k.PlanID, revision)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		f  delta.Fields
		rp delta.Replay
	)
	err = storedRows(rows, func(r stored) error {
		if r.revision > revision {
			return nil // a pending revision after it
		}
		next, err := rp.Next(r.revision, r.format, r.body)
		if r.revision == revision {
			f = next
		}
		return err
	})
	return f, err
}

// History lists all revisions of a plan, oldest first.
func (s *plansStore) History(ctx context.Context, sessionID, planID string) ([]plans.Revision, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT 0, revision, format, at, body FROM plan_revisions
		WHERE session_id = ?1 AND plan_id = ?2`+pendingAfter+` ORDER BY 1, 2`, sessionID, planID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		out []plans.Revision
		rp  delta.Replay
	)
	err = storedRows(rows, func(r stored) error {
		f, err := rp.Next(r.revision, r.format, r.body)
		if err != nil {
			return err
		}
		rev, err := f.Revision()
		out = append(out, rev)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

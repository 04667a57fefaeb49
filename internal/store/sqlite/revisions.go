package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/plandash/plandash/internal/plans"
)

// revisionsSchema is schema step 4: revisions may be deltas (format) and carry the time they
// were made (at, Unix milliseconds) for retention. Rows written before are whole plans; their
// time is read out of their JSON once, here.
const revisionsSchema = `
ALTER TABLE plan_revisions ADD COLUMN format INTEGER NOT NULL DEFAULT 0;
ALTER TABLE plan_revisions ADD COLUMN at INTEGER NOT NULL DEFAULT 0;
UPDATE plan_revisions SET at = COALESCE(CAST(unixepoch(json_extract(CAST(body AS TEXT), '$.updated'), 'subsec') * 1000 AS INTEGER), 0);
`

// tipCache remembers the newest revision of recently written plans, as rebuilt from the rows,
// so a new revision's delta is computed without reading its predecessors back. An entry is
// only trusted for the revision it names; anything else reads the rows.
type tipCache struct {
	mu   sync.Mutex
	tips map[plans.PlanKey]tip
}

type tip struct {
	revision int
	// plan is the revision as it was stored, when this process stored it: the next revision's
	// delta is found by comparing the two plans (diffPlans). fields is the revision's JSON split
	// into members, when it was rebuilt from the rows or encoded whole.
	plan   *plans.Plan
	fields fields
	// body is the revision's whole JSON, which fields points into; Commit writes it as the
	// plan's row too rather than encoding the same plan a second time.
	body []byte
}

// known reports whether t holds its revision in either form.
func (t tip) known() bool { return t.plan != nil || t.fields != nil }

// members is the revision split into its JSON members.
func (t tip) members() (fields, error) {
	if t.fields != nil || t.plan == nil {
		return t.fields, nil
	}
	return splitOwn(mustJSON(t.plan))
}

// maxTips bounds the cache; when full it starts over, which costs one read per plan.
const maxTips = 4096

func (c *tipCache) get(k plans.PlanKey, revision int) (tip, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tips[k]
	return t, ok && t.revision == revision && t.known()
}

func (c *tipCache) put(tips map[plans.PlanKey]tip) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tips == nil || len(c.tips)+len(tips) > maxTips {
		c.tips = make(map[plans.PlanKey]tip, len(tips))
	}
	for k, t := range tips {
		t.body = nil // only the commit that wrote it needs it
		c.tips[k] = t
	}
}

// putRevisions stores a batch's revisions in tx, each as a delta against the one before it
// when that one is known, and returns the plans' new tips for the cache once tx commits.
func (s *plansStore) putRevisions(ctx context.Context, tx *sql.Tx, revs []*plans.Plan, seq uint64) (map[plans.PlanKey]tip, error) {
	stmt := tx.StmtContext(ctx, s.stmt.insertRevision)
	tips := map[plans.PlanKey]tip{}
	for _, p := range revs {
		p.Seq = seq
		k := p.Key()
		keyframe := p.Revision%keyframeEvery == 1
		base := tips[k]
		ok := base.revision == p.Revision-1 && base.known()
		if !ok && !keyframe {
			if base, ok = s.cache.get(k, p.Revision-1); !ok {
				f, err := rebuild(ctx, tx, k, p.Revision-1)
				if err != nil {
					return nil, err
				}
				base, ok = tip{revision: p.Revision - 1, fields: f}, f != nil
			}
		}
		var (
			body   []byte
			format = formatFull
			t      = tip{revision: p.Revision, plan: clonePlan(p)}
		)
		switch {
		case ok && !keyframe && base.plan != nil:
			format, body = formatDelta, mustJSON(diffPlans(base.plan, p))
		default:
			whole := mustJSON(p)
			next, err := splitOwn(whole)
			if err != nil {
				return nil, err
			}
			t.fields, t.body, body = next, whole, whole
			if ok && !keyframe {
				d := diffFields(base.fields, next)
				delete(d.Set, revisionKey) // the row's key has it
				format, body = formatDelta, mustJSON(d)
			}
		}
		if _, err := stmt.ExecContext(ctx, p.SessionID, p.ID, p.Revision, body, format, p.Updated.UnixMilli()); err != nil {
			return nil, fmt.Errorf("store revision %d of plan %q: %w", p.Revision, p.ID, err)
		}
		tips[k] = t
	}
	return tips, nil
}

// rebuild reads one revision of a plan, from the last whole row at or before it; nil when the
// plan has no such revision.
func rebuild(ctx context.Context, q querier, k plans.PlanKey, revision int) (fields, error) {
	rows, err := q.QueryContext(ctx, `SELECT revision, format, body FROM plan_revisions
		WHERE session_id = ?1 AND plan_id = ?2 AND revision <= ?3 AND revision >= (
			SELECT MAX(revision) FROM plan_revisions WHERE session_id = ?1 AND plan_id = ?2 AND revision <= ?3 AND format = 0)
		ORDER BY revision`, k.SessionID, k.PlanID, revision)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var f fields
	err = replay(rows, func(rev int, next fields) error {
		if rev == revision {
			f = next
		}
		return nil
	})
	return f, err
}

// replay rebuilds each row of (revision, format, body), in revision order, and hands it on.
func replay(rows *sql.Rows, each func(revision int, f fields) error) error {
	var (
		prev    fields
		prevRev int
	)
	for rows.Next() {
		var (
			rev, format int
			body        []byte
		)
		if err := rows.Scan(&rev, &format, &body); err != nil {
			return err
		}
		var f fields
		var err error
		switch format {
		case formatFull:
			f, err = splitFields(body)
		case formatDelta:
			if prev == nil || prevRev != rev-1 {
				return fmt.Errorf("revision %d is stored as a change to revision %d, which is missing", rev, rev-1)
			}
			var d delta
			if err = json.Unmarshal(body, &d); err == nil {
				f, err = d.apply(prev)
			}
			if err == nil {
				f[revisionKey] = json.RawMessage(strconv.Itoa(rev))
			}
		default:
			err = fmt.Errorf("revision %d has an unknown format %d (written by a newer plandash?)", rev, format)
		}
		if err != nil {
			return err
		}
		if err := each(rev, f); err != nil {
			return err
		}
		prev, prevRev = f, rev
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
	err = replay(rows, func(_ int, f fields) error {
		p, err := decodeFields(f)
		out = append(out, plans.Revision{Revision: p.Revision, At: p.Updated, Plan: p})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

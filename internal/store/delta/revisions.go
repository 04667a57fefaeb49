// Package delta keeps a plan's revision history compact, the same way in every store: a
// revision is stored whole (a keyframe) or as the delta from the revision before it. Most
// updates change one entry of a plan and its timestamps, so a delta is that entry and a few
// members instead of the whole plan again. The stores keep the rows (revision, format, body);
// this package decides what each row holds and rebuilds revisions from them.
package delta

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/body"
)

// A row's format: the plan's JSON, or a delta's JSON against the row before it.
const (
	FormatFull  = 0
	FormatDelta = 1
)

// KeyframeEvery stores every so many revisions whole, so that rebuilding a plan's newest
// revision (after a restart) reads a bounded number of rows; its cost per update is a
// 1,024th of a whole plan.
const KeyframeEvery = 1024

// tip is a plan's newest revision, the base of the next one's delta.
type tip struct {
	revision int
	// plan is the revision as it was stored, when this process stored it: the next revision's
	// delta is found by comparing the two plans (diffPlans). fields is the revision's JSON split
	// into members, when it was rebuilt from the rows or encoded whole.
	plan   *plans.Plan
	fields Fields
	// body is the revision's whole JSON, which fields points into, when the batch encoded it.
	body []byte
}

// known reports whether t holds its revision in either form.
func (t tip) known() bool { return t.plan != nil || t.fields != nil }

// members is the revision split into its JSON members.
func (t tip) members() (Fields, error) {
	if t.fields != nil || t.plan == nil {
		return t.fields, nil
	}
	return splitOwn(mustJSON(t.plan))
}

// Cache remembers the newest revision of recently written plans, so a new revision's delta is
// computed without reading its predecessors back. An entry is only trusted for the revision it
// names; anything else reads the rows. The zero Cache is empty and ready.
type Cache struct {
	mu   sync.Mutex
	tips map[plans.PlanKey]tip
}

// maxTips bounds the cache; when full it starts over, which costs one read per plan.
const maxTips = 4096

func (c *Cache) get(k plans.PlanKey, revision int) (tip, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tips[k]
	return t, ok && t.revision == revision && t.known()
}

// Get is revision of the plan k when the cache holds it.
func (c *Cache) Get(k plans.PlanKey, revision int) (Fields, bool, error) {
	t, ok := c.get(k, revision)
	if !ok {
		return nil, false, nil
	}
	f, err := t.members()
	return f, err == nil, err
}

func (c *Cache) put(tips map[plans.PlanKey]tip) {
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

// Rebuilder reads revision of plan k back from the store's rows (with Replay, from the last
// whole row at or before it); nil when the plan has no such revision.
type Rebuilder func(k plans.PlanKey, revision int) (Fields, error)

// Batch encodes the revisions of one commit, in order.
type Batch struct {
	cache   *Cache
	rebuild Rebuilder
	tips    map[plans.PlanKey]tip
}

// Batch starts encoding a commit's revisions; rebuild reads a base that neither the batch nor
// the cache holds, inside the commit's transaction.
func (c *Cache) Batch(rebuild Rebuilder) *Batch {
	return &Batch{cache: c, rebuild: rebuild, tips: map[plans.PlanKey]tip{}}
}

// Encode is how revision p is stored: whole, or as a delta against the revision before it
// when that one is known (and p is not a keyframe).
func (b *Batch) Encode(p *plans.Plan) (format int, row []byte, err error) {
	k := p.Key()
	keyframe := p.Revision%KeyframeEvery == 1
	base := b.tips[k]
	ok := base.revision == p.Revision-1 && base.known()
	if !ok && !keyframe {
		if base, ok = b.cache.get(k, p.Revision-1); !ok {
			f, err := b.rebuild(k, p.Revision-1)
			if err != nil {
				return 0, nil, err
			}
			base, ok = tip{revision: p.Revision - 1, fields: f}, f != nil
		}
	}
	t := tip{revision: p.Revision, plan: clonePlan(p)}
	format = FormatFull
	if ok && !keyframe && base.plan != nil {
		format, row = FormatDelta, encodeDelta(diffPlans(base.plan, p))
	} else {
		whole := EncodePlan(p)
		next, err := splitOwn(whole)
		if err != nil {
			return 0, nil, err
		}
		t.fields, t.body, row = next, whole, whole
		if ok && !keyframe {
			d := diffFields(base.fields, next)
			delete(d.Set, revisionKey) // the row's key has it
			// next is the plan's own JSON, as encodeDelta needs.
			format, row = FormatDelta, encodeDelta(d)
		}
	}
	b.tips[k] = t
	return format, row, nil
}

// Whole is p's JSON when the batch encoded revision p whole, so the store can write it as the
// plan's current row too rather than encode the same plan a second time; nil otherwise.
func (b *Batch) Whole(p *plans.Plan) []byte {
	if t := b.tips[p.Key()]; t.revision == p.Revision {
		return t.body
	}
	return nil
}

// Committed hands the batch's revisions to the cache once the commit that stored them is
// durable; a batch whose commit failed is dropped instead.
func (b *Batch) Committed() { b.cache.put(b.tips) }

// Replay rebuilds a plan's revisions from its rows, read in revision order from a whole one.
type Replay struct {
	prev    Fields
	prevRev int
}

// Next rebuilds the revision of the next row.
func (r *Replay) Next(rev, format int, row []byte) (Fields, error) {
	var f Fields
	var err error
	switch format {
	case FormatFull:
		f, err = splitFields(row)
	case FormatDelta:
		if r.prev == nil || r.prevRev != rev-1 {
			return nil, fmt.Errorf("revision %d is stored as a change to revision %d, which is missing", rev, rev-1)
		}
		var d delta
		if err = json.Unmarshal(row, &d); err == nil {
			f, err = d.apply(r.prev)
		}
		if err == nil {
			f[revisionKey] = json.RawMessage(strconv.Itoa(rev))
		}
	default:
		err = fmt.Errorf("revision %d has an unknown format %d (written by a newer plandash?)", rev, format)
	}
	if err != nil {
		return nil, err
	}
	r.prev, r.prevRev = f, rev
	return f, nil
}

// Plan decodes a rebuilt revision.
func (f Fields) Plan() (plans.Plan, error) { return decodeFields(f) }

// Revision decodes a rebuilt revision as History lists it.
func (f Fields) Revision() (plans.Revision, error) {
	p, err := decodeFields(f)
	return plans.Revision{Revision: p.Revision, At: p.Updated, Plan: p}, err
}

// Whole is a rebuilt revision's JSON, to store it whole: what pruning does to the oldest
// revision it keeps, since the one its delta was against is going.
func (f Fields) Whole() ([]byte, error) { return json.Marshal(f) }

// KeepFrom is the oldest revision a plan keeps under a retention: first and last are its
// oldest and newest revisions, young the first made at or after the age cutoff (nil when
// none is), maxRevisions how many newest it keeps (0: no limit). The newest always stays.
func KeepFrom(first, last int, young *int, maxRevisions int) int {
	keep := first
	if maxRevisions > 0 {
		keep = max(keep, last-maxRevisions+1)
	}
	if young != nil {
		keep = max(keep, *young)
	} else {
		keep = last // every revision is too old but the newest stays
	}
	return min(keep, last)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("delta: encode %T: %v", v, err))
	}
	return b
}

// decodeFields turns rebuilt fields back into a plan.
func decodeFields(f Fields) (plans.Plan, error) {
	b, err := json.Marshal(f)
	if err != nil {
		return plans.Plan{}, err
	}
	return body.Decode[plans.Plan](b)
}

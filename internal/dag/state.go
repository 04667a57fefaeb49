package dag

import (
	"fmt"
	"slices"
)

// MaxRunWork bounds instances × (calls + distinct reads + initial keys),
// the size of a per-instance dry run. A plan's size is bounded by its
// bytes, but the product is not: a few kilobytes of "_instances" times a
// few kilobytes of reads would otherwise cost millions of state lookups on
// every parse.
const MaxRunWork = 2_000_000

// resolveInitial records, for every path the plan reads, which runs'
// initial state lacks it; validation and the dry run only consult this.
func (p *Plan) resolveInitial() error {
	reads := 0
	for i := range p.Calls {
		reads += len(p.Calls[i].Reads)
	}
	keys := 0
	for _, st := range p.states {
		if m, ok := st.(map[string]any); ok {
			keys = max(keys, len(m))
		}
	}
	if runs := len(p.states); runs > 1 && runs*(len(p.Calls)+reads+keys) > MaxRunWork {
		return fmt.Errorf("%w: %d instances of a plan with %d calls, %d reads and %d initial keys is too large to check (limit %d)",
			ErrInvalid, runs, len(p.Calls), reads, keys, MaxRunWork)
	}
	p.missing = make(map[Path][]int, len(p.overlap))
	for path := range p.overlap {
		var lack []int
		for run, st := range p.states {
			if !path.lookup(st) {
				lack = append(lack, run)
			}
		}
		p.missing[path] = lack
	}
	return nil
}

// lacks reports whether run's initial state lacks path.
func (p *Plan) lacks(path Path, run int) bool {
	_, found := slices.BinarySearch(p.missing[path], run)
	return found
}

// openReads lists, once per call and path, the reads that no other call
// provides, so each run checks only those against its initial state.
func (p *Plan) openReads(done []bool) (open []UnresolvedRead, self []bool) {
	for i := range p.Calls {
		c := &p.Calls[i]
		if !done[i] {
			continue
		}
		seen := map[Path]bool{}
		for _, r := range c.Reads {
			if seen[r.Path] {
				continue
			}
			seen[r.Path] = true
			isSelf := c.Output != "" && r.Path.Overlaps(c.Output)
			if isSelf || !p.writtenByOther(r.Path, i) {
				open = append(open, UnresolvedRead{Call: c.ID, Path: r.Path})
				self = append(self, isSelf)
			}
		}
	}
	return open, self
}

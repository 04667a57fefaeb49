package plans

import (
	"cmp"
	"slices"
)

// pairExact pairs removed and added units with equal keys: the same unit, somewhere else.
// Within one run of changes equal keys cannot both be unmatched (Myers would have kept them),
// so every such pair is a move. Earlier removed units pair with earlier added ones.
func pairExact(ia, ib []int32, removed, added []int, pairA, pairB map[int]int) {
	byID := make(map[int32][]int, len(removed))
	for _, i := range removed {
		byID[ia[i]] = append(byID[ia[i]], i)
	}
	for _, j := range added {
		q := byID[ib[j]]
		if len(q) == 0 {
			continue
		}
		pairA[q[0]], pairB[j] = j, q[0]
		byID[ib[j]] = q[1:]
	}
}

// pairSimilar pairs the still unpaired removed and added units whose words overlap most, best
// pairs first: first within each run of changes (edits in place), then, when moves is set,
// across runs (moved and edited). Scoring is bounded by pairBudget pairs per pass.
func pairSimilar(a, b []unit, removed, added []int, hunkA, hunkB []int32, moves bool, pairA, pairB map[int]int) {
	p := pairer{a: a, b: b, pairA: pairA, pairB: pairB, tok: newTokenSets(),
		setA: make(map[int][]int32), setB: make(map[int][]int32)}
	ra, rb := p.unpaired(removed, added)
	if len(ra) == 0 || len(rb) == 0 {
		return
	}
	// Within each run, compare each removed unit with the added units at about the same
	// offset in the run, in a window sized to the budget.
	window := max(pairBudget/max(len(ra), len(rb)), 1)
	if !moves {
		window = 1 // the k-th removed with the k-th added only: pairs never cross
	}
	y0 := 0
	for x := 0; x < len(ra); {
		h := hunkA[ra[x]]
		x1 := x
		for x1 < len(ra) && hunkA[ra[x1]] == h {
			x1++
		}
		for y0 < len(rb) && hunkB[rb[y0]] < h {
			y0++
		}
		y1 := y0
		for y1 < len(rb) && hunkB[rb[y1]] == h {
			y1++
		}
		for k := x; k < x1; k++ {
			lo := y0 + max(k-x-window/2, 0)
			for y := lo; y < min(y1, lo+window); y++ {
				p.try(ra[k], rb[y])
			}
		}
		x, y0 = x1, y1
	}
	p.assign()
	if !moves {
		return
	}
	ra, rb = p.unpaired(ra, rb)
	if len(ra)*len(rb) > pairBudget {
		return
	}
	for _, i := range ra {
		for _, j := range rb {
			p.try(i, j)
		}
	}
	p.assign()
}

// pairer scores candidate pairs of one diff, caching each unit's word set.
type pairer struct {
	a, b         []unit
	pairA, pairB map[int]int
	tok          *tokenSets
	setA, setB   map[int][]int32
	cands        []cand
}

type cand struct {
	i, j int
	sim  float64
}

func (p *pairer) unpaired(removed, added []int) (ra, rb []int) {
	for _, i := range removed {
		if _, ok := p.pairA[i]; !ok {
			ra = append(ra, i)
		}
	}
	for _, j := range added {
		if _, ok := p.pairB[j]; !ok {
			rb = append(rb, j)
		}
	}
	return ra, rb
}

func (p *pairer) try(i, j int) {
	if p.a[i].kind != p.b[j].kind {
		return
	}
	sa, ok := p.setA[i]
	if !ok {
		sa = p.tok.set(p.a[i].text)
		p.setA[i] = sa
	}
	sb, ok := p.setB[j]
	if !ok {
		sb = p.tok.set(p.b[j].text)
		p.setB[j] = sb
	}
	if s := dice(sa, sb); s >= minSimilarity {
		p.cands = append(p.cands, cand{i, j, s})
	}
}

// assign pairs the candidates greedily, most similar first (earlier units first on a tie).
func (p *pairer) assign() {
	slices.SortFunc(p.cands, func(x, y cand) int {
		if c := cmp.Compare(y.sim, x.sim); c != 0 {
			return c
		}
		if c := cmp.Compare(x.i, y.i); c != 0 {
			return c
		}
		return cmp.Compare(x.j, y.j)
	})
	for _, c := range p.cands {
		if _, ok := p.pairA[c.i]; ok {
			continue
		}
		if _, ok := p.pairB[c.j]; ok {
			continue
		}
		p.pairA[c.i], p.pairB[c.j] = c.j, c.i
	}
	p.cands = p.cands[:0]
}

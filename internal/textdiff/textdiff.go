// Package textdiff finds an edit script between two sequences with Myers's O((N+M)·D) algorithm
// in linear space: the plans' line, word and entry diffs, and the live layer's patches of markup
// a page already holds.
package textdiff

// Op says what a run of an edit script does.
type Op byte

// Edit operations.
const (
	Keep   Op = iota // a[A0:A1] kept as b[B0:B1]
	Insert           // b[B0:B1] added
	Delete           // a[A0:A1] removed
)

// Span is one run of an edit script, as index ranges into both sequences.
type Span struct {
	Op             Op
	A0, A1, B0, B1 int
}

// IDs diffs two sequences of interned ids (compared as integers). budget bounds the search (in diagonal steps;
// 0 means unbounded): when it runs out, what is left of a range is reported as removed and
// added whole, so the script stays correct but may not be minimal. That keeps a diff of two
// large, entirely different inputs from taking (N+M)·D time.
func IDs(a, b []int32, budget int) []Span {
	d := &myers{a: a, b: b, budget: budget, limited: budget > 0}
	d.compare(0, len(a), 0, len(b))
	return d.out
}

// Differ diffs like IDs but keeps its working memory from one diff to the next, for a caller
// that diffs often (the live layer patches an element for every change). It is not safe for
// concurrent use.
type Differ struct{ d myers }

// IDs is textdiff.IDs. The script it returns is valid until the Differ's next diff.
func (df *Differ) IDs(a, b []int32, budget int) []Span {
	df.d = myers{a: a, b: b, v1: df.d.v1, v2: df.d.v2, out: df.d.out[:0], budget: budget, limited: budget > 0}
	df.d.compare(0, len(a), 0, len(b))
	df.d.a, df.d.b = nil, nil // not kept alive by a pooled Differ
	return df.d.out
}

// myers holds one diff's inputs (interned ids, compared as integers), the two V arrays of the
// middle-snake search, reused across the recursion, and what is left of its budget.
type myers struct {
	a, b    []int32
	v1, v2  []int
	out     []Span
	budget  int
	limited bool
}

// emit appends a run, merging it into the previous one when they continue each other.
func (d *myers) emit(op Op, a0, a1, b0, b1 int) {
	if a0 == a1 && b0 == b1 {
		return
	}
	if n := len(d.out); n > 0 && d.out[n-1].Op == op && d.out[n-1].A1 == a0 && d.out[n-1].B1 == b0 {
		d.out[n-1].A1, d.out[n-1].B1 = a1, b1
		return
	}
	d.out = append(d.out, Span{op, a0, a1, b0, b1})
}

// compare diffs a[a0:a1] against b[b0:b1], appending to d.out in order.
func (d *myers) compare(a0, a1, b0, b1 int) {
	s, sb := a0, b0
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0++
		b0++
	}
	d.emit(Keep, s, a0, sb, b0)
	e, eb := a1, b1
	for a1 > a0 && b1 > b0 && d.a[a1-1] == d.b[b1-1] {
		a1--
		b1--
	}
	switch {
	case a0 == a1:
		d.emit(Insert, a0, a0, b0, b1)
	case b0 == b1:
		d.emit(Delete, a0, a1, b0, b0)
	default:
		x, y, ok := d.bisect(a0, a1, b0, b1)
		if !ok {
			// Nothing in common (or no budget left): the whole range is replaced.
			d.emit(Delete, a0, a1, b0, b0)
			d.emit(Insert, a1, a1, b0, b1)
			break
		}
		d.compare(a0, x, b0, y)
		d.compare(x, a1, y, b1)
	}
	d.emit(Keep, a1, e, b1, eb)
}

// bisect finds the middle snake of a[a0:a1] and b[b0:b1] (both non-empty, first and last
// elements differing) by searching forwards from the start and backwards from the end until
// the paths overlap, and returns the point where the forward path reached it: a split such
// that diffing both halves gives a minimal diff of the whole. ok is false when the ranges have
// nothing in common.
func (d *myers) bisect(a0, a1, b0, b1 int) (x, y int, ok bool) {
	a, b := d.a[a0:a1], d.b[b0:b1]
	n, m := len(a), len(b)
	maxD := (n + m + 1) / 2
	off, vlen := maxD, 2*maxD+2
	if cap(d.v1) < vlen {
		d.v1, d.v2 = make([]int, vlen), make([]int, vlen)
	}
	v1, v2 := d.v1[:vlen], d.v2[:vlen]
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	// With an odd delta the paths meet on a forward step, with an even one on a backward step.
	front := delta%2 != 0
	// Diagonals that ran off the grid are skipped from then on.
	var k1start, k1end, k2start, k2end int
	for dd := 0; dd < maxD; dd++ {
		if d.limited {
			if d.budget -= 2*dd + 2; d.budget < 0 {
				return 0, 0, false
			}
		}
		for k1 := -dd + k1start; k1 <= dd-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -dd || (k1 != dd && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && a[x1] == b[y1] {
				x1++
				y1++
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				if j := off + delta - k1; j >= 0 && j < vlen && v2[j] != -1 && x1 >= n-v2[j] {
					return a0 + x1, b0 + y1, true
				}
			}
		}
		for k2 := -dd + k2start; k2 <= dd-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -dd || (k2 != dd && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && a[n-x2-1] == b[m-y2-1] {
				x2++
				y2++
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				if j := off + delta - k2; j >= 0 && j < vlen && v1[j] != -1 {
					x1 := v1[j]
					if y1 := x1 - (j - off); x1 >= n-x2 {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}

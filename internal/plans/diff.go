package plans

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// DiffOp says whether a line was kept, added or removed.
type DiffOp byte

// Diff operations.
const (
	Same    DiffOp = ' '
	Added   DiffOp = '+'
	Removed DiffOp = '-'
)

// DiffLine is one line of a diff.
type DiffLine struct {
	Op   DiffOp
	Text string
}

// Lines renders a plan as the lines a person compares between revisions.
func (p Plan) Lines() []string {
	switch {
	case p.Removed:
		return []string{"(plan removed)"}
	case p.Kind == KindMarkdown:
		return capLines(strings.Split(p.Markdown, "\n"))
	case p.Kind == KindFile:
		return []string{"file: " + p.URI}
	case len(p.Entries) > 0:
		out := make([]string, min(len(p.Entries), maxLines))
		for i := range out {
			e := p.Entries[i]
			out[i] = fmt.Sprintf("[%s] %s (%s)", e.Status, e.Content, e.Priority)
		}
		if n := len(p.Entries) - len(out); n > 0 {
			out = append(out, fmt.Sprintf("… %d more entries not shown", n))
		}
		return out
	case len(p.Raw) > 0 && json.Valid(p.Raw):
		return capLines(strings.Split(FormatJSON(p.Raw).Display(), "\n"))
	}
	return nil
}

// maxLines bounds the lines of one revision a diff compares and shows: a history page renders
// every line of two revisions, with markup around each.
const maxLines = 2000

func capLines(lines []string) []string {
	if len(lines) <= maxLines {
		return lines
	}
	return append(lines[:maxLines:maxLines], fmt.Sprintf("… %d more lines not shown", len(lines)-maxLines))
}

// Diff computes a minimal line diff from a to b: the fewest lines removed and added (so the
// Same lines are a longest common subsequence). It is Myers's O((N+M)·D) algorithm in linear
// space, so plans of tens of thousands of lines that differ a little diff fast, and plans that
// differ a lot still come out exact rather than as remove-all/add-all. Within each run of
// changes the removed lines come before the added ones, as a person reads a replacement.
func Diff(a, b []string) []DiffLine {
	ids := make(map[string]int32, len(a)+len(b))
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	out := make([]DiffLine, 0, max(len(a), len(b)))
	for _, s := range diffIDs(intern(a), intern(b), 0) {
		switch s.op {
		case Same, Removed:
			for _, l := range a[s.a0:s.a1] {
				out = append(out, DiffLine{s.op, l})
			}
		case Added:
			for _, l := range b[s.b0:s.b1] {
				out = append(out, DiffLine{s.op, l})
			}
		}
	}
	groupChanges(out)
	return out
}

// span is one run of an edit script: a[a0:a1] kept as b[b0:b1] (Same), a[a0:a1] removed, or
// b[b0:b1] added. The structured diff works on these index ranges rather than on lines.
type span struct {
	op             DiffOp
	a0, a1, b0, b1 int
}

// diffIDs diffs two sequences of interned ids. budget bounds the search (in diagonal steps;
// 0 means unbounded): when it runs out, what is left of a range is reported as removed and
// added whole, so the script stays correct but may not be minimal. That keeps a diff of two
// large, entirely different inputs from taking (N+M)·D time.
func diffIDs(a, b []int32, budget int) []span {
	d := &myers{a: a, b: b, budget: budget, limited: budget > 0}
	d.compare(0, len(a), 0, len(b))
	return d.out
}

// myers holds one diff's inputs (interned ids, compared as integers), the two V arrays of the
// middle-snake search, reused across the recursion, and what is left of its budget.
type myers struct {
	a, b    []int32
	v1, v2  []int
	out     []span
	budget  int
	limited bool
}

// emit appends a run, merging it into the previous one when they continue each other.
func (d *myers) emit(op DiffOp, a0, a1, b0, b1 int) {
	if a0 == a1 && b0 == b1 {
		return
	}
	if n := len(d.out); n > 0 && d.out[n-1].op == op && d.out[n-1].a1 == a0 && d.out[n-1].b1 == b0 {
		d.out[n-1].a1, d.out[n-1].b1 = a1, b1
		return
	}
	d.out = append(d.out, span{op, a0, a1, b0, b1})
}

// compare diffs a[a0:a1] against b[b0:b1], appending to d.out in order.
func (d *myers) compare(a0, a1, b0, b1 int) {
	s, sb := a0, b0
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0++
		b0++
	}
	d.emit(Same, s, a0, sb, b0)
	e, eb := a1, b1
	for a1 > a0 && b1 > b0 && d.a[a1-1] == d.b[b1-1] {
		a1--
		b1--
	}
	switch {
	case a0 == a1:
		d.emit(Added, a0, a0, b0, b1)
	case b0 == b1:
		d.emit(Removed, a0, a1, b0, b0)
	default:
		x, y, ok := d.bisect(a0, a1, b0, b1)
		if !ok {
			// Nothing in common (or no budget left): the whole range is replaced.
			d.emit(Removed, a0, a1, b0, b0)
			d.emit(Added, a1, a1, b0, b1)
			break
		}
		d.compare(a0, x, b0, y)
		d.compare(x, a1, y, b1)
	}
	d.emit(Same, a1, e, b1, eb)
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

// groupChanges reorders each run of changed lines so its removals come first. Lines only move
// within a run between two Same lines, so the edit script still turns a into b.
func groupChanges(out []DiffLine) {
	for i := 0; i < len(out); {
		if out[i].Op == Same {
			i++
			continue
		}
		j := i
		for j < len(out) && out[j].Op != Same {
			j++
		}
		slices.SortStableFunc(out[i:j], func(x, y DiffLine) int {
			return cmp.Compare(opRank(x.Op), opRank(y.Op))
		})
		i = j
	}
}

func opRank(op DiffOp) int {
	if op == Removed {
		return 0
	}
	return 1
}

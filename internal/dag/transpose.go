package dag

import "slices"

// transposePasses bounds the adjacent-swap passes per ordering round; most
// gains come in the first two.
const transposePasses = 4

// transposer swaps neighbours in a layer whenever that removes crossings
// with the layers above and below (the "transpose" step of Gansner et al.).
// Counting only the two nodes' own edges keeps each pass linear in edges.
type transposer struct{ a, b []int }

func (t *transposer) run(ln []lnode, layers [][]int) {
	for range transposePasses {
		improved := false
		for _, l := range layers {
			for i := 0; i+1 < len(l); i++ {
				u, v := l[i], l[i+1]
				if t.cross(ln, u, v) > t.cross(ln, v, u) {
					l[i], l[i+1] = v, u
					ln[u].pos, ln[v].pos = i+1, i
					improved = true
				}
			}
		}
		if !improved {
			return
		}
	}
}

// cross counts crossings between the edges of u and v if u is left of v:
// pairs of neighbours (a of u, b of v) on the same side with b left of a.
func (t *transposer) cross(ln []lnode, u, v int) int {
	return t.side(ln, ln[u].up, ln[v].up) + t.side(ln, ln[u].down, ln[v].down)
}

func (t *transposer) side(ln []lnode, nu, nv []int) int {
	if len(nu) == 0 || len(nv) == 0 {
		return 0
	}
	t.a, t.b = t.a[:0], t.b[:0]
	for _, w := range nu {
		t.a = append(t.a, ln[w].pos)
	}
	for _, w := range nv {
		t.b = append(t.b, ln[w].pos)
	}
	slices.Sort(t.a)
	slices.Sort(t.b)
	c, j := 0, 0
	for _, x := range t.a {
		for j < len(t.b) && t.b[j] < x {
			j++
		}
		c += j
	}
	return c
}

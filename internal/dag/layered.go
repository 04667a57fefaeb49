package dag

import (
	"slices"
	"sort"
)

// Spacing inside EngineLayered: long edges run through thin virtual nodes,
// kept a little apart so parallel edges stay distinguishable.
const (
	virtualWidth = 8.0
	virtualGap   = 12.0
	maxSweeps    = 12
)

// lnode is a node of the layered drawing: a real node of the part or a
// virtual node carrying a long edge through a layer.
type lnode struct {
	layer, pos int
	w, x       float64
	real       int // index into Graph.Nodes, -1 for virtual nodes
	up, down   []int
}

// lchain is one edge in layout direction: source, virtual nodes, target.
type lchain struct {
	edge  int
	nodes []int
	rev   bool
}

// layeredPart lays out one connected part: cycles broken by depth-first
// search, longest-path layering (or autog's, from h), median ordering
// sweeps with transpositions keeping the order with fewest crossings, then
// x coordinates by weighted isotonic regression, which keeps nodes in order
// while pulling them towards their neighbours. Every step is about linear
// in nodes plus edge segments.
func layeredPart(g *Graph, p part, geo *Geometry, inset []float64, h *hints) {
	ln, chains := buildLayers(g, p, geo, h)
	layers := orderLayers(ln, h != nil)
	placeX(ln, layers)
	top, height := placeY(ln, layers, p, geo)
	for k, v := range p.nodes {
		r := &geo.Nodes[v]
		r.X = ln[k].x - r.W/2
		r.Y = top[ln[k].layer] + (height[ln[k].layer]-r.H)/2
	}
	route(ln, chains, top, height, g, geo, inset)
}

func sortSearch(nodes []int, v int) int { return sort.SearchInts(nodes, v) }

// dedge is an edge between local node indices.
type dedge struct{ from, to int }

// buildLayers breaks cycles, assigns layers and inserts virtual nodes, or
// takes layers and initial x positions from h. The first len(p.nodes)
// entries of the result are the real nodes, in order.
func buildLayers(g *Graph, p part, geo *Geometry, h *hints) ([]lnode, []lchain) {
	de := make([]dedge, len(p.edges))
	for i, ei := range p.edges {
		de[i] = dedge{sortSearch(p.nodes, g.Edges[ei].From), sortSearch(p.nodes, g.Edges[ei].To)}
	}
	var layer []int
	var rev []bool
	if h != nil {
		layer = slices.Clone(h.layer)
		rev = make([]bool, len(de))
		for i, e := range de {
			rev[i] = layer[e.from] > layer[e.to]
		}
		pullSources(layer, de, rev)
	} else {
		layer, rev = layerGraph(len(p.nodes), de)
	}
	ln := make([]lnode, len(p.nodes), len(p.nodes)+len(de))
	for i, v := range p.nodes {
		ln[i] = lnode{layer: layer[i], w: geo.Nodes[v].W, real: v}
		if h != nil {
			ln[i].x = h.x[i]
		}
	}
	for i := range de {
		if rev[i] {
			de[i].from, de[i].to = de[i].to, de[i].from
		}
	}
	direct := longEdges(de, layer, virtualBudget*(len(p.nodes)+len(de)))
	chains := make([]lchain, len(de))
	for i, e := range de {
		c := lchain{edge: p.edges[i], rev: rev[i], nodes: []int{e.from}}
		if direct[i] {
			c.nodes = append(c.nodes, e.to)
			chains[i] = c
			continue
		}
		span := layer[e.to] - layer[e.from]
		prev := e.from
		for l := layer[e.from] + 1; l < layer[e.to]; l++ {
			x := 0.0
			if h != nil {
				// Without autog's bend points, interpolate along the edge.
				t := float64(l-layer[e.from]) / float64(span)
				x = ln[e.from].x + t*(ln[e.to].x-ln[e.from].x)
				if len(h.edgeX[i]) == span-1 {
					x = h.edgeX[i][l-layer[e.from]-1]
				}
			}
			ln = append(ln, lnode{layer: l, w: virtualWidth, real: -1, x: x, up: []int{prev}})
			ln[prev].down = append(ln[prev].down, len(ln)-1)
			prev = len(ln) - 1
			c.nodes = append(c.nodes, prev)
		}
		ln[prev].down = append(ln[prev].down, e.to)
		ln[e.to].up = append(ln[e.to].up, prev)
		c.nodes = append(c.nodes, e.to)
		chains[i] = c
	}
	return ln, chains
}

// virtualBudget caps virtual nodes per node and edge of a part. Virtual
// nodes grow with edge length: a plan where every call reads something the
// first call wrote would need a number quadratic in its size.
const virtualBudget = 4

// longEdges picks the edges drawn as direct lines, without virtual nodes,
// once the budget is spent: the longest ones, ties by position. They take
// no part in ordering and may cross boxes, which beats never finishing.
func longEdges(de []dedge, layer []int, budget int) []bool {
	direct := make([]bool, len(de))
	total := 0
	for _, e := range de {
		total += layer[e.to] - layer[e.from] - 1
	}
	if total <= budget {
		return direct
	}
	idx := make([]int, len(de))
	for i := range idx {
		idx[i] = i
	}
	span := func(i int) int { return layer[de[i].to] - layer[de[i].from] }
	slices.SortStableFunc(idx, func(a, b int) int { return span(a) - span(b) })
	used := 0
	for _, i := range idx {
		if used += span(i) - 1; used > budget {
			direct[i] = true
		}
	}
	return direct
}

// layerGraph breaks cycles and assigns layers to the n nodes of a part.
func layerGraph(n int, de []dedge) (layer []int, rev []bool) {
	out := make([][]int, n)
	for i, e := range de {
		out[e.from] = append(out[e.from], i)
	}
	// Depth-first search in node order; an edge into a node still on the
	// stack closes a cycle and is drawn reversed.
	rev = make([]bool, len(de))
	state := make([]uint8, n) // 0 new, 1 on stack, 2 done
	type visit struct{ v, next int }
	for root := range n {
		if state[root] != 0 {
			continue
		}
		stack := []visit{{root, 0}}
		state[root] = 1
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(out[top.v]) {
				state[top.v] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			i := out[top.v][top.next]
			top.next++
			switch w := de[i].to; state[w] {
			case 0:
				state[w] = 1
				stack = append(stack, visit{w, 0})
			case 1:
				rev[i] = true
			}
		}
	}
	succ := make([][]int, n)
	indeg := make([]int, n)
	for i, e := range de {
		if rev[i] {
			e.from, e.to = e.to, e.from
		}
		succ[e.from] = append(succ[e.from], e.to)
		indeg[e.to]++
	}
	// Longest-path layering over a topological order.
	layer = make([]int, n)
	queue := make([]int, 0, n)
	for v := range n {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	deg := slices.Clone(indeg)
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for _, w := range succ[v] {
			layer[w] = max(layer[w], layer[v]+1)
			if deg[w]--; deg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	pullSources(layer, de, rev)
	return layer, rev
}

// pullSources moves every source right above its nearest successor
// instead of the top layer, which shortens edges a lot in plans whose
// inputs are fetched late.
func pullSources(layer []int, de []dedge, rev []bool) {
	const none = int(^uint(0) >> 1)
	hasIn := make([]bool, len(layer))
	lowest := make([]int, len(layer))
	for i := range lowest {
		lowest[i] = none
	}
	for i, e := range de {
		if rev[i] {
			e.from, e.to = e.to, e.from
		}
		hasIn[e.to] = true
		lowest[e.from] = min(lowest[e.from], layer[e.to])
	}
	for v := range layer {
		if !hasIn[v] && lowest[v] != none {
			layer[v] = lowest[v] - 1
		}
	}
}

// orderLayers fixes the left-to-right order in each layer and returns the
// layers; ln[v].pos is set to match. With hinted x positions the hinted
// order is the one to beat; otherwise a first downward sweep makes it.
func orderLayers(ln []lnode, hinted bool) [][]int {
	depth := 0
	for _, v := range ln {
		depth = max(depth, v.layer+1)
	}
	layers := make([][]int, depth)
	for v := range ln {
		layers[ln[v].layer] = append(layers[ln[v].layer], v)
	}
	setPos := func(ls [][]int) {
		for _, l := range ls {
			for i, v := range l {
				ln[v].pos = i
			}
		}
	}
	keys := make([]float64, len(ln))
	if hinted {
		for _, l := range layers {
			slices.SortStableFunc(l, func(a, b int) int { return cmpFloat(ln[a].x, ln[b].x) })
		}
		setPos(layers)
	} else {
		setPos(layers)
		sweep(ln, layers, keys, true)
	}
	var tr transposer
	tr.run(ln, layers)
	best, bestCount := cloneLayers(layers), crossings(ln, layers)
	for i, stale := 0, 0; i < maxSweeps && stale < 2 && bestCount > 0; i++ {
		sweep(ln, layers, keys, false)
		sweep(ln, layers, keys, true)
		tr.run(ln, layers)
		if c := crossings(ln, layers); c < bestCount {
			best, bestCount, stale = cloneLayers(layers), c, 0
		} else {
			stale++
		}
	}
	setPos(best)
	return best
}

func cloneLayers(ls [][]int) [][]int {
	out := make([][]int, len(ls))
	for i, l := range ls {
		out[i] = slices.Clone(l)
	}
	return out
}

// sweep reorders every layer by the mean position of its neighbours in the
// previous layer (downwards) or the next one (upwards). Nodes without such
// neighbours keep their place.
func sweep(ln []lnode, layers [][]int, keys []float64, down bool) {
	scratch := make([]int, 0, 16)
	step := func(l []int) {
		for _, v := range l {
			nb := ln[v].up
			if !down {
				nb = ln[v].down
			}
			if len(nb) == 0 {
				keys[v] = float64(ln[v].pos)
				continue
			}
			keys[v] = medianPos(ln, nb, scratch)
		}
		slices.SortStableFunc(l, func(a, b int) int { return cmpFloat(keys[a], keys[b]) })
		for i, v := range l {
			ln[v].pos = i
		}
	}
	if down {
		for i := 1; i < len(layers); i++ {
			step(layers[i])
		}
		return
	}
	for i := len(layers) - 2; i >= 0; i-- {
		step(layers[i])
	}
}

// crossings counts edge crossings between consecutive layers by counting
// inversions with a Fenwick tree (Barth, Jünger and Mutzel).
func crossings(ln []lnode, layers [][]int) int {
	total := 0
	var seq []int
	for i := 0; i+1 < len(layers); i++ {
		seq = seq[:0]
		for _, v := range layers[i] {
			start := len(seq)
			for _, w := range ln[v].down {
				seq = append(seq, ln[w].pos)
			}
			slices.Sort(seq[start:])
		}
		tree := make([]int, len(layers[i+1])+1)
		for k, q := range seq {
			// Count earlier entries greater than q.
			le := 0
			for j := q + 1; j > 0; j -= j & -j {
				le += tree[j]
			}
			total += k - le
			for j := q + 1; j < len(tree); j += j & -j {
				tree[j]++
			}
		}
	}
	return total
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// medianPos is the median position of nb, the mean of the middle two for
// an even count; medians keep one far neighbour from dragging a node.
func medianPos(ln []lnode, nb []int, buf []int) float64 {
	buf = buf[:0]
	for _, u := range nb {
		buf = append(buf, ln[u].pos)
	}
	slices.Sort(buf)
	m := len(buf) / 2
	if len(buf)%2 == 1 {
		return float64(buf[m])
	}
	return float64(buf[m-1]+buf[m]) / 2
}

package dag

import "slices"

// stronglyConnected returns the components with more than one node, each
// sorted by index and ordered by their smallest index. It is Tarjan's
// algorithm with an explicit stack, because a 10,000-call chain would make
// a recursive version dive 10,000 frames deep.
func stronglyConnected(n int, edges []Edge, out [][]int) [][]int {
	const unvisited = -1
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = unvisited
	}
	var stack []int
	var comps [][]int
	type visit struct{ node, next int }
	next := 0
	for root := 0; root < n; root++ {
		if index[root] != unvisited {
			continue
		}
		work := []visit{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			top := &work[len(work)-1]
			v := top.node
			if top.next < len(out[v]) {
				w := edges[out[v][top.next]].To
				top.next++
				switch {
				case index[w] == unvisited:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, visit{w, 0})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			work = work[:len(work)-1]
			if len(work) > 0 {
				u := work[len(work)-1].node
				low[u] = min(low[u], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 {
				slices.Sort(comp)
				comps = append(comps, comp)
			}
		}
	}
	slices.SortFunc(comps, func(a, b []int) int { return a[0] - b[0] })
	return comps
}

// findCycle returns a shortest cycle through the smallest node of comp, as
// nodes in order and the edges between them (the last edge closes the loop).
func findCycle(comp []int, edges []Edge, out [][]int) (nodes, via []int) {
	start := comp[0]
	in := make(map[int]bool, len(comp))
	for _, v := range comp {
		in[v] = true
	}
	parentEdge := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, ei := range out[v] {
			w := edges[ei].To
			if w == start {
				// Walk back from v to start, then close the loop.
				via = append(via, ei)
				for u := v; u != start; u = edges[parentEdge[u]].From {
					via = append(via, parentEdge[u])
				}
				slices.Reverse(via)
				for _, e := range via {
					nodes = append(nodes, edges[e].From)
				}
				return nodes, via
			}
			if !in[w] {
				continue
			}
			if _, seen := parentEdge[w]; seen {
				continue
			}
			parentEdge[w] = ei
			queue = append(queue, w)
		}
	}
	return []int{start}, nil // unreachable for a real component
}

package dag

import (
	"math"
	"slices"
	"strconv"

	"github.com/nulab/autog"
	agraph "github.com/nulab/autog/graph"
)

// hints carry autog's decisions into EngineLayered: which layer each node
// is in and the left-to-right order (as x positions) of nodes and of long
// edges in every layer they cross.
type hints struct {
	layer []int       // per node of the part
	x     []float64   // per node of the part
	edgeX [][]float64 // per edge of the part, one x per crossed layer, top down
}

// autogHints runs autog on one connected part and keeps its layering and
// ordering: the weighted-median ordering with transpositions is its real
// strength. Its phases are chosen for safety, not looks, because autog
// v0.11.0 is pre-1.0:
//   - the default positioning (sink colouring) can recurse without end and
//     kill the process with a stack overflow, which recover cannot catch,
//     and it lets boxes of one layer overlap; vertical alignment is trivial
//     and only its order is used, EngineLayered places and routes;
//   - network-simplex layering breaks ties by map iteration order, so the
//     same plan could be drawn differently; longest-path layering and the
//     depth-first cycle breaker are deterministic.
//
// Panics ("graph is still cyclic", index errors), a flat edge or missing
// output yield nil, and the part falls back to EngineLayered alone.
func autogHints(g *Graph, p part, geo *Geometry) (h *hints) {
	defer func() {
		if recover() != nil {
			h = nil
		}
	}()
	local := make(map[int]string, len(p.nodes))
	sizes := make(map[string]agraph.Size, len(p.nodes))
	for i, v := range p.nodes {
		id := strconv.Itoa(i)
		local[v] = id
		sizes[id] = agraph.Size{W: geo.Nodes[v].W, H: geo.Nodes[v].H}
	}
	edges := make([][]string, len(p.edges))
	for i, ei := range p.edges {
		e := g.Edges[ei]
		edges[i] = []string{local[e.From], local[e.To]}
	}
	// Never pass autog.WithMonitor: it sets package-level state in autog
	// and concurrent layouts would race.
	out := autog.Layout(agraph.EdgeSlice(edges),
		autog.WithNodeSize(sizes),
		autog.WithLayerSpacing(LayerGap),
		autog.WithNodeSpacing(NodeGap),
		autog.WithCycleBreaking(autog.CycleBreakingDepthFirst),
		autog.WithLayering(autog.LayeringLongestPath),
		autog.WithOrdering(autog.OrderingWMedian),
		autog.WithPositioning(autog.PositioningVAlign),
		autog.WithEdgeRouting(autog.EdgeRoutingPolyline),
	)
	if len(out.Nodes) != len(p.nodes) || len(out.Edges) != len(p.edges) {
		return nil
	}
	h = &hints{layer: make([]int, len(p.nodes)), x: make([]float64, len(p.nodes)), edgeX: make([][]float64, len(p.edges))}
	centreY := make([]float64, len(p.nodes))
	seen := make([]bool, len(p.nodes))
	for _, n := range out.Nodes {
		i, err := strconv.Atoi(n.ID)
		if err != nil || i < 0 || i >= len(seen) || seen[i] || !finite(n.X, n.Y) {
			return nil
		}
		seen[i] = true
		h.x[i] = n.X + n.W/2
		centreY[i] = n.Y + n.H/2
	}
	// Layers are the distinct node rows, top down.
	rows := slices.Clone(centreY)
	slices.Sort(rows)
	rows = slices.CompactFunc(rows, func(a, b float64) bool { return math.Abs(a-b) < 0.5 })
	for i, y := range centreY {
		h.layer[i], _ = slices.BinarySearchFunc(rows, y, func(r, y float64) int {
			switch {
			case r < y-0.5:
				return -1
			case r > y+0.5:
				return 1
			}
			return 0
		})
	}
	points := make(map[[2]string][][2]float64, len(out.Edges))
	for _, e := range out.Edges {
		points[[2]string{e.FromID, e.ToID}] = e.Points
	}
	for k, ei := range p.edges {
		e := g.Edges[ei]
		a, b := sortSearch(p.nodes, e.From), sortSearch(p.nodes, e.To)
		span := h.layer[b] - h.layer[a]
		if span == 0 {
			return nil // flat edge: our router only draws between layers
		}
		// autog routes through its virtual nodes top down, whatever the
		// edge's direction; a point count that fits tells their x.
		pts := points[[2]string{local[e.From], local[e.To]}]
		if len(pts)-2 == abs(span)-1 {
			for _, pt := range pts[1 : len(pts)-1] {
				h.edgeX[k] = append(h.edgeX[k], pt[0])
			}
		}
	}
	return h
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

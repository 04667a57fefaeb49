package dag

import (
	"math"
	"unicode/utf8"
)

// Engine names the algorithm that placed a graph.
type Engine string

// Layout engines.
const (
	// EngineAutog means github.com/nulab/autog chose the layers and the
	// order within them (its weighted-median ordering crosses fewer edges);
	// placement and routing are EngineLayered's.
	EngineAutog Engine = "autog"
	// EngineLayered is this package's own layered layout: longest-path
	// layering, median ordering with transpositions and isotonic
	// placement, about linear. It also names drawings without edges.
	EngineLayered Engine = "layered"
)

// AutogMaxNodes and AutogMaxEdges bound the graphs handed to autog.
// autog v0.11.0 counts crossings anew for every transposition, so its time
// climbs steeply; measured on this project's 2-core machine with random
// DAGs of about 1.4 edges per node, in the safe configuration autogHints
// uses: 20 nodes 3 ms, 40 nodes 36 ms, 60 nodes 120 ms, 80 nodes 230 ms,
// 120 nodes 1.7 s (its default configuration: 50 nodes ~90 ms, 300 nodes
// 1.5-3.5 s, against 0.1 s for Graphviz dot). EngineLayered needs 85 µs for
// 60 nodes and lays out 5,000 calls in tens of milliseconds, but autog's
// ordering has about 45% fewer crossings on small graphs, so it is used
// where it costs no more than a few tens of milliseconds per plan update.
const (
	AutogMaxNodes = 40
	AutogMaxEdges = 80
)

// Drawing metrics shared with the SVG templates. Node text is assumed to be
// a 13px sans-serif face; CharWidth is its average advance. Edge labels are
// a 12px monospace face (0.6em per character), so that at the smallest zoom
// the viewer allows they still print at about 11px.
const (
	NodeHeight        = 40.0
	CharWidth         = 7.4
	EdgeCharWidth     = 7.2
	NodeIconWidth     = 28.0 // status icon column at the left of a node
	NodePadRight      = 14.0
	MinNodeWidth      = 80.0
	MarkWidth         = 22.0 // one problem badge at the right of a node
	LabelMaxRunes     = 32
	EdgeLabelMaxRunes = 40
	LayerGap          = 64.0 // room for an edge label between layers
	NodeGap           = 28.0
	Margin            = 16.0
	ComponentGap      = 48.0
	selfLoopReach     = 22.0
)

// Point is a position in the drawing, y growing downwards.
type Point struct{ X, Y float64 }

// Rect is a node box; X, Y is its top-left corner.
type Rect struct{ X, Y, W, H float64 }

// EdgeShape is how one edge is drawn.
type EdgeShape struct {
	// Points is a polyline from the source node to the target node.
	Points []Point
	// Label is the centre of the edge label.
	Label Point
	// LabelBox is the room the label takes, beside the line in space no
	// node, line or other label uses; zero when no label is drawn.
	LabelBox Rect
	// LabelHidden is set when the label has text but no free room: it is
	// not drawn, and readers find it in the edge's tooltip instead.
	LabelHidden bool
	// Back marks edges drawn against the flow to close a cycle (and
	// self-loops), so they can be styled apart.
	Back bool
	// RepeatLabel is set when an earlier edge from the same source has the
	// same label: in plans every reader of a call shows that call's output
	// path, and drawing it once per source keeps fan-outs readable.
	RepeatLabel bool
}

// Geometry is a laid-out graph; Nodes and Edges are indexed like the
// Graph's.
type Geometry struct {
	Width, Height float64     // the drawing's size, margins included
	Nodes         []Rect      // one box per Graph.Nodes entry
	Edges         []EdgeShape // one shape per Graph.Edges entry
	Engine        Engine      // which engine placed the nodes
}

// Truncate shortens s to at most n runes, ending with an ellipsis when cut;
// sizes and drawings both use it, so boxes fit what is drawn.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + "…"
}

// NodeWidth is the width of a node box showing label.
func NodeWidth(label string) float64 {
	w := NodeIconWidth + NodePadRight + CharWidth*float64(utf8.RuneCountInString(Truncate(label, LabelMaxRunes)))
	return math.Ceil(max(w, MinNodeWidth))
}

// EdgeLabelWidth estimates the drawn width of an edge label.
func EdgeLabelWidth(label string) float64 {
	return EdgeCharWidth * float64(utf8.RuneCountInString(Truncate(label, EdgeLabelMaxRunes)))
}

// Layout places g's nodes and routes its edges. Connected parts are laid out
// one by one and packed in rows, in the order of their first node; nodes
// without edges are parts of their own. Small graphs use autog; larger ones,
// or any part autog fails on, use EngineLayered. The result depends only on
// g, so the same plan always looks the same.
func Layout(g *Graph) Geometry {
	n := len(g.Nodes)
	geo := Geometry{Nodes: make([]Rect, n), Edges: make([]EdgeShape, len(g.Edges)), Engine: EngineLayered}
	if n == 0 {
		geo.Width, geo.Height = 2*Margin, 2*Margin
		return geo
	}
	useAutog := n <= AutogMaxNodes && len(g.Edges) <= AutogMaxEdges
	loopRoom := make([]float64, n)
	for i, e := range g.Edges {
		if e.From == e.To {
			lw, _ := LabelBoxSize(g.Edges[i].Label)
			loopRoom[e.From] = max(loopRoom[e.From], selfLoopReach+lw+2*labelClear+6)
		}
	}
	for i, nd := range g.Nodes {
		// A node with a self-loop gets a wider slot, centred, so the loop
		// and its label fit beside the box.
		w := NodeWidth(nd.Label) + MarkWidth*float64(len(nd.Marks))
		geo.Nodes[i] = Rect{W: w + 2*loopRoom[i], H: NodeHeight}
	}
	markRepeatLabels(g, &geo) // before routing, which spreads only shown labels
	var parts []box
	anyAutog, anyFailed := false, false
	for _, comp := range components(g) {
		b, done, failed := layoutPart(g, comp, &geo, useAutog, loopRoom)
		parts = append(parts, b)
		anyAutog, anyFailed = anyAutog || done, anyFailed || failed
	}
	if anyAutog && !anyFailed {
		geo.Engine = EngineAutog // autog ordered every part with edges
	}
	w, h := pack(parts, &geo)
	for i := range geo.Nodes {
		if loopRoom[i] > 0 {
			geo.Nodes[i].X += loopRoom[i]
			geo.Nodes[i].W -= 2 * loopRoom[i]
		}
	}
	for i, e := range g.Edges {
		if e.From == e.To {
			geo.Edges[i] = selfLoop(geo.Nodes[e.From], g.Edges[i].Label)
		}
	}
	geo.Width, geo.Height = math.Ceil(w+2*Margin), math.Ceil(h+2*Margin)
	placeLabels(g, &geo)
	return geo
}

func markRepeatLabels(g *Graph, geo *Geometry) {
	type key struct {
		from  int
		label string
	}
	seen := make(map[key]bool, len(g.Edges))
	for i, e := range g.Edges {
		if e.Label == "" || e.From == e.To {
			continue
		}
		k := key{e.From, e.Label}
		geo.Edges[i].RepeatLabel = seen[k]
		seen[k] = true
	}
}

// part is one connected component: node indices ascending and the indices
// of its edges, self-loops excluded.
type part struct {
	nodes []int
	edges []int
}

// components splits g with union-find; autog's own splitting iterates over
// maps, which would make layouts differ from run to run.
func components(g *Graph) []part {
	n := len(g.Nodes)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, e := range g.Edges {
		a, b := find(e.From), find(e.To)
		if a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	// The smaller index always becomes the root, so each root is its
	// part's first node and parts come out in node order.
	slot := make([]int, n)
	var parts []part
	for v := range n {
		r := find(v)
		if r == v {
			slot[v] = len(parts)
			parts = append(parts, part{})
		}
		parts[slot[r]].nodes = append(parts[slot[r]].nodes, v)
	}
	for i, e := range g.Edges {
		if e.From != e.To {
			p := &parts[slot[find(e.From)]]
			p.edges = append(p.edges, i)
		}
	}
	return parts
}

// box is the extent of a laid-out part in its own coordinates.
type box struct {
	part          part
	minX, minY    float64
	maxX, maxY    float64
	width, height float64
}

// layoutPart places one part in its own coordinates and reports whether
// autog ordered it or was tried and failed.
func layoutPart(g *Graph, p part, geo *Geometry, useAutog bool, inset []float64) (b box, autogDone, autogFailed bool) {
	switch {
	case len(p.edges) == 0:
		// A lone node (autog needs edges): it sits at the origin.
	default:
		var h *hints
		if useAutog {
			h = autogHints(g, p, geo)
			autogDone, autogFailed = h != nil, h == nil
		}
		layeredPart(g, p, geo, inset, h)
	}
	b = box{part: p, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	grow := func(x0, y0, x1, y1 float64) {
		b.minX, b.minY = min(b.minX, x0), min(b.minY, y0)
		b.maxX, b.maxY = max(b.maxX, x1), max(b.maxY, y1)
	}
	for _, v := range p.nodes {
		r := geo.Nodes[v]
		grow(r.X, r.Y, r.X+r.W, r.Y+r.H)
	}
	for _, ei := range p.edges {
		s := geo.Edges[ei]
		for _, pt := range s.Points {
			grow(pt.X, pt.Y, pt.X, pt.Y)
		}
		if hw := EdgeLabelWidth(g.Edges[ei].Label) / 2; hw > 0 {
			grow(s.Label.X-hw, s.Label.Y-8, s.Label.X+hw, s.Label.Y+8)
		}
	}
	b.width, b.height = b.maxX-b.minX, b.maxY-b.minY
	return b, autogDone, autogFailed
}

// pack places parts left to right in rows no wider than a target that
// keeps the drawing roughly as wide as it is tall (but never narrower than
// the widest part), then moves every node and edge into place.
func pack(parts []box, geo *Geometry) (width, height float64) {
	area, widest := 0.0, 0.0
	for _, b := range parts {
		area += (b.width + ComponentGap) * (b.height + ComponentGap)
		widest = max(widest, b.width)
	}
	target := max(widest, 1.6*math.Sqrt(area))
	x, y, rowH := 0.0, 0.0, 0.0
	for _, b := range parts {
		if x > 0 && x+b.width > target {
			x, y, rowH = 0, y+rowH+ComponentGap, 0
		}
		dx, dy := Margin+x-b.minX, Margin+y-b.minY
		for _, v := range b.part.nodes {
			geo.Nodes[v].X += dx
			geo.Nodes[v].Y += dy
		}
		for _, ei := range b.part.edges {
			s := &geo.Edges[ei]
			for i := range s.Points {
				s.Points[i].X += dx
				s.Points[i].Y += dy
			}
			s.Label.X += dx
			s.Label.Y += dy
		}
		width = max(width, x+b.width)
		height = max(height, y+b.height)
		x += b.width + ComponentGap
		rowH = max(rowH, b.height)
	}
	return width, height
}

// selfLoop draws a small loop on the right side of r.
func selfLoop(r Rect, label string) EdgeShape {
	x := r.X + r.W
	y0, y1 := r.Y+r.H*0.3, r.Y+r.H*0.7
	return EdgeShape{
		Points: []Point{{x, y0}, {x + selfLoopReach, y0}, {x + selfLoopReach, y1}, {x, y1}},
		Label:  Point{x + selfLoopReach + 4 + EdgeLabelWidth(label)/2, r.Y + r.H/2},
		Back:   true,
	}
}

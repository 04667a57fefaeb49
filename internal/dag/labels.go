package dag

import "math"

// Edge label boxes. A label is placed beside its edge, never on it, in room
// that no node, no other label and no line uses; where the drawing has no
// such room the label is left out of the drawing (LabelHidden) and is read
// from the edge's tooltip and the node details instead. Crowded labels that
// overlap or sit under lines are worse than none: they hide each other and
// the edges.
const (
	// LabelHeight is the height of an edge label's box: a 12px line.
	LabelHeight = 16.0
	// labelPadX is the room the box keeps on either side of its text.
	labelPadX = 3.0
	// labelClear is the distance a label keeps from nodes, lines and other
	// labels, so neighbours stay apart when drawn with a halo.
	labelClear = 2.0
	// labelCell is the side of the grid cells that index the drawing.
	labelCell = 64.0
)

// LabelBoxSize is the width and height of the box a label's text needs.
func LabelBoxSize(label string) (w, h float64) {
	return math.Ceil(EdgeLabelWidth(label) + 2*labelPadX), LabelHeight
}

// Intersects reports whether r and o share any area.
func (r Rect) Intersects(o Rect) bool {
	return r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

// grow is r widened by d on every side.
func (r Rect) grow(d float64) Rect { return Rect{r.X - d, r.Y - d, r.W + 2*d, r.H + 2*d} }

// CrossesSegment reports whether the segment a–b passes through r's
// interior or touches it (Liang–Barsky clipping).
func (r Rect) CrossesSegment(a, b Point) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := b.X-a.X, b.Y-a.Y
	clip := func(p, q float64) bool {
		if p == 0 {
			return q >= 0
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return false
			}
			t0 = max(t0, t)
		} else {
			if t < t0 {
				return false
			}
			t1 = min(t1, t)
		}
		return true
	}
	return clip(-dx, a.X-r.X) && clip(dx, r.X+r.W-a.X) && clip(-dy, a.Y-r.Y) && clip(dy, r.Y+r.H-a.Y) && t0 <= t1
}

// grid indexes boxes and segments by the cells they touch, so each
// candidate label is checked against its neighbourhood only.
type grid struct {
	cells map[[2]int32][]int32
	rects []Rect     // what each id covers, for the exact test
	segs  [][2]Point // segments, ids offset by segBase
	// budget is how many exact tests the placement may still make.
	budget int
}

const segBase = 1 << 30

func newGrid() *grid { return &grid{cells: map[[2]int32][]int32{}} }

func (g *grid) span(r Rect) (x0, y0, x1, y1 int32) {
	return int32(math.Floor(r.X / labelCell)), int32(math.Floor(r.Y / labelCell)),
		int32(math.Floor((r.X + r.W) / labelCell)), int32(math.Floor((r.Y + r.H) / labelCell))
}

func (g *grid) addRect(r Rect) {
	id := int32(len(g.rects))
	g.rects = append(g.rects, r)
	x0, y0, x1, y1 := g.span(r)
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			g.cells[[2]int32{x, y}] = append(g.cells[[2]int32{x, y}], id)
		}
	}
}

// addSegment files a segment under every cell it passes through. It walks
// the segment in steps shorter than a cell and files each step's L-shaped
// corner too, so a line through a cell's corner is not missed; a long edge
// is filed in a strip of cells, not its whole bounding box.
func (g *grid) addSegment(a, b Point) {
	id := int32(segBase + len(g.segs))
	g.segs = append(g.segs, [2]Point{a, b})
	cell := func(p Point) [2]int32 {
		return [2]int32{int32(math.Floor(p.X / labelCell)), int32(math.Floor(p.Y / labelCell))}
	}
	add := func(c [2]int32) {
		if l := g.cells[c]; len(l) == 0 || l[len(l)-1] != id {
			g.cells[c] = append(l, id)
		}
	}
	steps := int(math.Ceil(math.Hypot(b.X-a.X, b.Y-a.Y)/(labelCell/2))) + 1
	prev := cell(a)
	add(prev)
	for k := 1; k <= steps; k++ {
		t := float64(k) / float64(steps)
		c := cell(Point{a.X + t*(b.X-a.X), a.Y + t*(b.Y-a.Y)})
		if c != prev {
			add([2]int32{c[0], prev[1]})
			add([2]int32{prev[0], c[1]})
			add(c)
			prev = c
		}
	}
}

// free reports whether r (already grown by the clearance) meets nothing
// filed in the grid. Every exact test spends one unit of the grid's budget;
// once it is spent nothing is free, so a hostile fan-out (thousands of
// lines through one cell) cannot make the layout quadratic.
func (g *grid) free(r Rect) bool {
	if g.budget <= 0 {
		return false
	}
	x0, y0, x1, y1 := g.span(r)
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			for _, id := range g.cells[[2]int32{x, y}] {
				g.budget--
				if id >= segBase {
					s := g.segs[id-segBase]
					if r.CrossesSegment(s[0], s[1]) {
						return false
					}
				} else if r.Intersects(g.rects[id]) {
					return false
				}
			}
		}
	}
	return true
}

// placeLabels gives every shown label a box beside its edge in free room,
// or hides it. Labels are placed in edge order, so the same graph always
// shows the same labels.
func placeLabels(g *Graph, geo *Geometry) {
	idx := newGrid()
	idx.budget = labelBudget * (len(g.Nodes) + len(g.Edges))
	for _, r := range geo.Nodes {
		idx.addRect(r)
	}
	// Indexing costs the lines' total length; a plan whose edges run
	// thousands of pixels each (every call reading the first one's output)
	// would spend seconds on it, and has no room for labels anyway.
	length := 0.0
	for _, s := range geo.Edges {
		for k := 1; k < len(s.Points); k++ {
			length += math.Hypot(s.Points[k].X-s.Points[k-1].X, s.Points[k].Y-s.Points[k-1].Y)
		}
	}
	if length/labelCell > float64(idx.budget)/8 {
		idx.budget = 0
	} else {
		for _, s := range geo.Edges {
			for k := 1; k < len(s.Points); k++ {
				idx.addSegment(s.Points[k-1], s.Points[k])
			}
		}
	}
	// Labels may reach past the nodes' extent (a label is often wider
	// than the node above it); the drawing grows to hold them afterwards,
	// but only by so much, so a label never wanders far from the graph.
	canvas := Rect{-labelReach, -labelReach, geo.Width + 2*labelReach, geo.Height + 2*labelReach}
	for i, e := range g.Edges {
		s := &geo.Edges[i]
		if e.Label == "" || s.RepeatLabel || len(s.Points) < 2 {
			continue
		}
		w, h := LabelBoxSize(e.Label)
		box, ok := findLabelBox(idx, canvas, s, w, h)
		if !ok {
			s.LabelHidden = true
			continue
		}
		s.LabelBox = box
		s.Label = Point{box.X + box.W/2, box.Y + box.H/2}
		idx.addRect(box)
	}
	fitLabels(geo)
}

// labelBudget is the exact box tests placing labels may make per node and
// edge; ordinary plans use a small fraction of it.
const labelBudget = 400

// labelReach is how far past the nodes' extent a label may stick out.
const labelReach = 120.0

// fitLabels moves the drawing so every label box lies inside it, with the
// usual margin, and grows it to match.
func fitLabels(geo *Geometry) {
	minX, minY := Margin, Margin
	maxX, maxY := geo.Width-Margin, geo.Height-Margin
	for _, s := range geo.Edges {
		if b := s.LabelBox; b.W > 0 {
			minX, minY = min(minX, b.X), min(minY, b.Y)
			maxX, maxY = max(maxX, b.X+b.W), max(maxY, b.Y+b.H)
		}
	}
	dx, dy := Margin-minX, Margin-minY
	geo.Width, geo.Height = math.Ceil(maxX+dx+Margin), math.Ceil(maxY+dy+Margin)
	if dx == 0 && dy == 0 {
		return
	}
	for i := range geo.Nodes {
		geo.Nodes[i].X += dx
		geo.Nodes[i].Y += dy
	}
	for i := range geo.Edges {
		s := &geo.Edges[i]
		for k := range s.Points {
			s.Points[k].X += dx
			s.Points[k].Y += dy
		}
		s.Label.X += dx
		s.Label.Y += dy
		if s.LabelBox.W > 0 {
			s.LabelBox.X += dx
			s.LabelBox.Y += dy
		}
	}
}

// findLabelBox tries boxes beside each segment of the edge, starting at
// the source, right of the line before left of it, then above and below.
func findLabelBox(idx *grid, canvas Rect, s *EdgeShape, w, h float64) (Rect, bool) {
	pts := s.Points
	if s.Back {
		// Back edges are stored target first; their label still belongs
		// near where the data comes from.
		pts = reversed(pts)
	}
	gap := labelClear + 2
	// Where along a segment a label is tried, best first: the middle reads
	// as belonging to the edge; the ends crowd the nodes.
	fractions := [...]float64{0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9}
	for k := 1; k < len(pts); k++ {
		a, b := pts[k-1], pts[k]
		for _, t := range fractions {
			p := Point{a.X + t*(b.X-a.X), a.Y + t*(b.Y-a.Y)}
			// How far the line drifts sideways over the box's height, so a
			// slanted line does not clip the box's near corner.
			slant := 0.0
			if dy := b.Y - a.Y; dy != 0 {
				slant = math.Abs((b.X-a.X)/dy) * h / 2
			}
			// Beside the line first (right, then left), sliding along it
			// when a neighbour's line is in the way; above and below last.
			right, left := p.X+gap+slant, p.X-gap-slant-w
			for _, dy := range [...]float64{-h / 2, -h, 0, -1.5 * h, h / 2} {
				for _, x := range [...]float64{right, left} {
					if c := (Rect{x, p.Y + dy, w, h}); fits(idx, canvas, c) {
						return c, true
					}
				}
			}
			for _, y := range [...]float64{p.Y - gap - h, p.Y + gap} {
				if c := (Rect{p.X - w/2, y, w, h}); fits(idx, canvas, c) {
					return c, true
				}
			}
		}
	}
	return Rect{}, false
}

// fits reports whether c lies inside canvas with its clearance free.
func fits(idx *grid, canvas Rect, c Rect) bool {
	if c.X < canvas.X || c.Y < canvas.Y || c.X+c.W > canvas.X+canvas.W || c.Y+c.H > canvas.Y+canvas.H {
		return false
	}
	return idx.free(c.grow(labelClear))
}

func reversed(pts []Point) []Point {
	out := make([]Point, len(pts))
	for i, p := range pts {
		out[len(pts)-1-i] = p
	}
	return out
}

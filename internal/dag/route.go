package dag

import "slices"

// route draws each chain as a polyline: out of the bottom of its source,
// straight down through its virtual nodes, into the top of its target.
// Edges leaving or entering one node get their own ports, spread along the
// side in the order of where they go, so they do not start on top of each
// other or cross right at the node.
func route(ln []lnode, chains []lchain, top, height []float64, g *Graph, geo *Geometry, inset []float64) {
	type port struct {
		chain int
		x     float64 // where the edge heads, for ordering
	}
	outs := make(map[int][]port)
	ins := make(map[int][]port)
	for ci, c := range chains {
		first, last := c.nodes[0], c.nodes[len(c.nodes)-1]
		outs[first] = append(outs[first], port{ci, ln[c.nodes[1]].x})
		ins[last] = append(ins[last], port{ci, ln[c.nodes[len(c.nodes)-2]].x})
	}
	startX := make([]float64, len(chains))
	endX := make([]float64, len(chains))
	spread := func(v int, ps []port, dst []float64) {
		slices.SortStableFunc(ps, func(a, b port) int { return cmpFloat(a.x, b.x) })
		r := geo.Nodes[ln[v].real]
		in := inset[ln[v].real]
		w := r.W - 2*in
		for i, p := range ps {
			dst[p.chain] = r.X + in + w*float64(i+1)/float64(len(ps)+1)
		}
	}
	for v, ps := range outs {
		spread(v, ps, startX)
	}
	for v, ps := range ins {
		spread(v, ps, endX)
	}
	for ci, c := range chains {
		src := geo.Nodes[ln[c.nodes[0]].real]
		dst := geo.Nodes[ln[c.nodes[len(c.nodes)-1]].real]
		pts := make([]Point, 0, 2+2*(len(c.nodes)-2))
		pts = append(pts, Point{startX[ci], src.Y + src.H})
		for _, v := range c.nodes[1 : len(c.nodes)-1] {
			l := ln[v].layer
			pts = append(pts, Point{ln[v].x, top[l]}, Point{ln[v].x, top[l] + height[l]})
		}
		pts = append(pts, Point{endX[ci], dst.Y})
		// The gap below the top end is where placeLabels looks first; this
		// anchor only sizes the part.
		label := Point{(pts[0].X + pts[1].X) / 2, (pts[0].Y + pts[1].Y) / 2}
		if c.rev {
			slices.Reverse(pts)
		}
		s := &geo.Edges[c.edge]
		s.Points, s.Label, s.Back = pts, label, c.rev
	}
}

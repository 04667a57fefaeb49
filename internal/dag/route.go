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
		// Labels go in the gap below the top end: inside a layer a label
		// would run over the boxes beside the edge.
		label := Point{(pts[0].X + pts[1].X) / 2, (pts[0].Y + pts[1].Y) / 2}
		if c.rev {
			slices.Reverse(pts)
		}
		s := &geo.Edges[c.edge]
		s.Points, s.Label, s.Back = pts, label, c.rev
	}
	spreadLabels(ln, chains, g, geo)
}

// spreadLabels pushes apart the labels that share a gap between two layers
// so they do not print over each other.
func spreadLabels(ln []lnode, chains []lchain, g *Graph, geo *Geometry) {
	rows := map[int][]int{} // gap (layer above it) → chains with a label there
	for ci, c := range chains {
		if s := geo.Edges[c.edge]; !s.RepeatLabel && g.Edges[c.edge].Label != "" {
			l := ln[c.nodes[0]].layer
			rows[l] = append(rows[l], ci)
		}
	}
	var buf pavBuf
	var xs, ws []float64
	for _, row := range rows {
		slices.SortStableFunc(row, func(a, b int) int {
			return cmpFloat(geo.Edges[chains[a].edge].Label.X, geo.Edges[chains[b].edge].Label.X)
		})
		xs, ws = xs[:0], ws[:0]
		for _, ci := range row {
			e := chains[ci].edge
			xs = append(xs, geo.Edges[e].Label.X)
			ws = append(ws, EdgeLabelWidth(Truncate(g.Edges[e].Label, EdgeLabelMaxRunes)))
		}
		buf.spreadRow(xs, ws, 8)
		for k, ci := range row {
			geo.Edges[chains[ci].edge].Label.X = xs[k]
		}
	}
}

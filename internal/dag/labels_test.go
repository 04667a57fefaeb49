package dag

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomPlan is a layered tool-call plan of n calls, each reading one or two
// outputs of the layer above or the one above that: the shape agents' plans
// have (bench/layout.go draws the same kind).
func randomPlan(t *testing.T, n int, seed uint64) *Plan {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	width := max(4, n/14)
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		layer := i / width
		fmt.Fprintf(&b, `{"_id":"c%d","_tool":"tool_%d","_outputPath":"†state.v%d"`, i, i%17, i)
		for k := range 1 + r.IntN(2) {
			if layer == 0 {
				break
			}
			from := layer - 1
			if layer > 1 && r.IntN(4) == 0 {
				from = layer - 2
			}
			fmt.Fprintf(&b, `,"in%d":"†state.v%d"`, k, from*width+r.IntN(width))
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return mustParse(t, b.String())
}

// checkLabels asserts the label contract: every drawn label has a box of
// its text's size inside the canvas that meets no node, no other label and
// no line; labels not drawn are marked hidden. It returns how many labels
// were drawn and how many hidden.
func checkLabels(t *testing.T, g *Graph, geo Geometry) (shown, hidden int) {
	t.Helper()
	var boxes []Rect
	for i, e := range g.Edges {
		s := geo.Edges[i]
		if e.Label == "" || s.RepeatLabel {
			if s.LabelHidden || s.LabelBox != (Rect{}) {
				t.Fatalf("edge %d has no label to draw but %+v", i, s)
			}
			continue
		}
		if s.LabelHidden {
			hidden++
			continue
		}
		shown++
		b := s.LabelBox
		if w, h := LabelBoxSize(e.Label); b.W != w || b.H != h {
			t.Fatalf("edge %d label box %+v, want %vx%v", i, b, w, h)
		}
		if b.X < 0 || b.Y < 0 || b.X+b.W > geo.Width || b.Y+b.H > geo.Height {
			t.Fatalf("edge %d label box %+v outside %vx%v", i, b, geo.Width, geo.Height)
		}
		if c := (Point{b.X + b.W/2, b.Y + b.H/2}); math.Abs(c.X-s.Label.X) > 0.01 || math.Abs(c.Y-s.Label.Y) > 0.01 {
			t.Fatalf("edge %d label centre %+v, box centre %+v", i, s.Label, c)
		}
		for k, r := range geo.Nodes {
			if b.Intersects(r) {
				t.Fatalf("edge %d label %+v overlaps node %d %+v", i, b, k, r)
			}
		}
		for k, o := range geo.Edges {
			for j := 1; j < len(o.Points); j++ {
				if b.CrossesSegment(o.Points[j-1], o.Points[j]) {
					t.Fatalf("edge %d label %+v is crossed by edge %d (%+v–%+v)", i, b, k, o.Points[j-1], o.Points[j])
				}
			}
		}
		boxes = append(boxes, b)
	}
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			if a.Intersects(b) {
				t.Fatalf("labels %+v and %+v overlap", a, b)
			}
		}
	}
	return shown, hidden
}

func TestLabelsNeverOverlap(t *testing.T) {
	tests := []struct {
		name string
		n    int
		plan bool
		// minShown is the share of labels that must find room: hiding
		// every label would satisfy the overlap checks and help no one.
		minShown float64
	}{
		{"plan of 20 calls", 20, true, 0.5},
		{"plan of 200 calls", 200, true, 0.4},
		{"plan of 600 calls", 600, true, 0.2},
		{"random graph of 60 nodes", 60, false, 0.5},
		{"random graph of 300 nodes", 300, false, 0.3},
	}
	for _, tt := range tests {
		for seed := uint64(0); seed < 4; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", tt.name, seed), func(t *testing.T) {
				var g *Graph
				if tt.plan {
					g = randomPlan(t, tt.n, seed).Graph
				} else {
					g = randomGraph(tt.n, seed, seed%2 == 1)
				}
				geo := Layout(g)
				checkGeometry(t, g, geo)
				shown, hidden := checkLabels(t, g, geo)
				if shown+hidden == 0 {
					t.Fatal("no labels to place: the test graph is wrong")
				}
				if share := float64(shown) / float64(shown+hidden); share < tt.minShown {
					t.Errorf("%d of %d labels drawn (%.0f%%), want at least %.0f%%", shown, shown+hidden, 100*share, 100*tt.minShown)
				}
				t.Logf("%d labels drawn, %d hidden", shown, hidden)
			})
		}
	}
}

func TestLabelsSmallGraphsShowAll(t *testing.T) {
	tests := []struct{ name, graph string }{
		{"chain", `{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],"edges":[{"from":"a","to":"b","label":"†state.first"},{"from":"b","to":"c","label":"†state.second"}]}`},
		{"fan-in", `{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],"edges":[{"from":"a","to":"c","label":"†state.left"},{"from":"b","to":"c","label":"†state.right"}]}`},
		{"cycle", `{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","label":"there"},{"from":"b","to":"a","label":"back"}]}`},
		{"self-loop", `{"nodes":[{"id":"a","label":"loop"}],"edges":[{"from":"a","to":"a","label":"retry until done"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ParseGraph([]byte(tt.graph))
			if err != nil {
				t.Fatal(err)
			}
			geo := Layout(g)
			if shown, hidden := checkLabels(t, g, geo); hidden > 0 {
				t.Errorf("%d of %d labels hidden in a small graph: %+v", hidden, shown+hidden, geo.Edges)
			}
		})
	}
}

func TestRectCrossesSegment(t *testing.T) {
	r := Rect{10, 10, 20, 10}
	tests := []struct {
		name string
		a, b Point
		want bool
	}{
		{"through", Point{0, 15}, Point{40, 15}, true},
		{"inside", Point{12, 12}, Point{14, 14}, true},
		{"above", Point{0, 5}, Point{40, 5}, false},
		{"beside, vertical", Point{35, 0}, Point{35, 40}, false},
		{"diagonal past the corner", Point{0, 30}, Point{40, -10}, true},
		{"diagonal missing the corner", Point{25, 0}, Point{40, 15}, false},
		{"a point", Point{5, 5}, Point{5, 5}, false},
	}
	for _, tt := range tests {
		if got := r.CrossesSegment(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: CrossesSegment = %v, want %v", tt.name, got, tt.want)
		}
	}
}

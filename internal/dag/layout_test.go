package dag

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// randomGraph is a seeded random graph with n nodes and about 1.5n edges;
// cyclic adds edges against the flow.
func randomGraph(n int, seed uint64, cyclic bool) *Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"n%d","label":"%s"}`, i, strings.Repeat("x", 1+r.IntN(20)))
	}
	b.WriteString(`],"edges":[`)
	first := true
	for i := 1; i < n; i++ {
		for k := 0; k < 1+r.IntN(2); k++ {
			from, to := r.IntN(i), i
			if cyclic && r.IntN(5) == 0 {
				from, to = to, from
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			fmt.Fprintf(&b, `{"from":"n%d","to":"n%d","label":"†state.v%d"}`, from, to, from)
		}
	}
	b.WriteString("]}")
	g, err := ParseGraph([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return g
}

// checkGeometry asserts what every drawing must satisfy: finite coordinates
// inside the canvas, no overlapping boxes, edges that start on their source
// and end on their target.
func checkGeometry(t *testing.T, g *Graph, geo Geometry) {
	t.Helper()
	if len(geo.Nodes) != len(g.Nodes) || len(geo.Edges) != len(g.Edges) {
		t.Fatalf("geometry has %d nodes, %d edges; graph %d, %d", len(geo.Nodes), len(geo.Edges), len(g.Nodes), len(g.Edges))
	}
	inside := func(x, y float64) bool {
		return finite(x, y) && x >= -0.01 && y >= -0.01 && x <= geo.Width+0.01 && y <= geo.Height+0.01
	}
	for i, r := range geo.Nodes {
		if !inside(r.X, r.Y) || !inside(r.X+r.W, r.Y+r.H) || r.W <= 0 || r.H <= 0 {
			t.Fatalf("node %d box %+v outside %vx%v", i, r, geo.Width, geo.Height)
		}
	}
	for i, a := range geo.Nodes {
		for j := i + 1; j < len(geo.Nodes); j++ {
			b := geo.Nodes[j]
			if a.X < b.X+b.W-0.01 && b.X < a.X+a.W-0.01 && a.Y < b.Y+b.H-0.01 && b.Y < a.Y+a.H-0.01 {
				t.Fatalf("nodes %d %+v and %d %+v overlap", i, a, j, b)
			}
		}
	}
	on := func(p Point, r Rect) bool {
		return p.X >= r.X-0.5 && p.X <= r.X+r.W+0.5 && p.Y >= r.Y-0.5 && p.Y <= r.Y+r.H+0.5
	}
	for i, e := range g.Edges {
		s := geo.Edges[i]
		if len(s.Points) < 2 {
			t.Fatalf("edge %d has %d points", i, len(s.Points))
		}
		for _, p := range s.Points {
			if !inside(p.X, p.Y) {
				t.Fatalf("edge %d point %+v outside", i, p)
			}
		}
		if !on(s.Points[0], geo.Nodes[e.From]) || !on(s.Points[len(s.Points)-1], geo.Nodes[e.To]) {
			t.Fatalf("edge %d (%d→%d) runs %+v … %+v, not between %+v and %+v", i, e.From, e.To,
				s.Points[0], s.Points[len(s.Points)-1], geo.Nodes[e.From], geo.Nodes[e.To])
		}
		if !inside(s.Label.X, s.Label.Y) {
			t.Fatalf("edge %d label at %+v", i, s.Label)
		}
	}
}

func TestLayoutShapes(t *testing.T) {
	tests := []struct {
		name   string
		graph  string
		engine Engine
		check  func(t *testing.T, geo Geometry)
	}{
		{"empty", `{"nodes":[]}`, EngineLayered, func(t *testing.T, geo Geometry) {
			if geo.Width <= 0 || geo.Height <= 0 {
				t.Errorf("size %vx%v", geo.Width, geo.Height)
			}
		}},
		{"single node", `{"nodes":[{"id":"a","label":"only"}]}`, EngineLayered, func(t *testing.T, geo Geometry) {
			if r := geo.Nodes[0]; r.X != Margin || r.Y != Margin || r.W != NodeWidth("only") {
				t.Errorf("box %+v", r)
			}
		}},
		{"isolated nodes beside a component", `{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}],"edges":[{"from":"b","to":"c"}]}`, EngineAutog, nil},
		{"two components side by side", `{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}],"edges":[{"from":"a","to":"b"},{"from":"c","to":"d"}]}`, EngineAutog,
			func(t *testing.T, geo Geometry) {
				if geo.Nodes[2].X <= geo.Nodes[0].X+geo.Nodes[0].W || geo.Nodes[2].Y != geo.Nodes[0].Y {
					t.Errorf("second component not to the right: %+v", geo.Nodes)
				}
			}},
		{"cycle gets a back edge", `{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],"edges":[{"from":"a","to":"b"},{"from":"b","to":"c"},{"from":"c","to":"a","label":"again"}]}`, EngineAutog,
			func(t *testing.T, geo Geometry) {
				back := 0
				for _, e := range geo.Edges {
					if e.Back {
						back++
					}
				}
				if back != 1 {
					t.Errorf("%d back edges, want 1", back)
				}
			}},
		{"two-cycle keeps both arrows apart", `{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b"},{"from":"b","to":"a"}]}`, EngineAutog,
			func(t *testing.T, geo Geometry) {
				if reflect.DeepEqual(geo.Edges[0].Points[0], geo.Edges[1].Points[len(geo.Edges[1].Points)-1]) {
					t.Errorf("edges share an end: %+v", geo.Edges)
				}
			}},
		{"self-loop beside its node", `{"nodes":[{"id":"a","label":"loop"}],"edges":[{"from":"a","to":"a","label":"retry"}]}`, EngineLayered,
			func(t *testing.T, geo Geometry) {
				s, r := geo.Edges[0], geo.Nodes[0]
				if !s.Back || s.Points[1].X <= r.X+r.W || r.W != NodeWidth("loop") {
					t.Errorf("loop %+v around %+v", s, r)
				}
			}},
		{"repeated labels from one source", `{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],"edges":[{"from":"a","to":"b","label":"x"},{"from":"a","to":"c","label":"x"}]}`, EngineAutog,
			func(t *testing.T, geo Geometry) {
				if geo.Edges[0].RepeatLabel || !geo.Edges[1].RepeatLabel {
					t.Errorf("repeat flags %v %v", geo.Edges[0].RepeatLabel, geo.Edges[1].RepeatLabel)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ParseGraph([]byte(tt.graph))
			if err != nil {
				t.Fatal(err)
			}
			geo := Layout(g)
			if geo.Engine != tt.engine {
				t.Errorf("engine = %s, want %s", geo.Engine, tt.engine)
			}
			checkGeometry(t, g, geo)
			if tt.check != nil {
				tt.check(t, geo)
			}
		})
	}
}

func TestLayoutRandom(t *testing.T) {
	sizes := []int{2, 5, 20, AutogMaxNodes, 150, 1000}
	if testing.Short() {
		sizes = sizes[:4]
	}
	for _, n := range sizes {
		for _, cyclic := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/cyclic=%v", n, cyclic), func(t *testing.T) {
				for seed := uint64(0); seed < 3; seed++ {
					g := randomGraph(n, seed, cyclic)
					geo := Layout(g)
					checkGeometry(t, g, geo)
					if n > AutogMaxNodes && geo.Engine != EngineLayered {
						t.Errorf("engine = %s for %d nodes", geo.Engine, n)
					}
					if again := Layout(g); !reflect.DeepEqual(geo, again) {
						t.Fatal("layout is not deterministic")
					}
				}
			})
		}
	}
}

func TestLayoutConcurrent(t *testing.T) {
	// Under -race this proves no package-level state is shared, autog's
	// included.
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := randomGraph(30, uint64(i), i%2 == 0)
			checkGeometry(t, g, Layout(g))
		}()
	}
	wg.Wait()
}

func TestNodeWidth(t *testing.T) {
	if NodeWidth("a") != MinNodeWidth {
		t.Errorf("short labels get the minimum width")
	}
	long := strings.Repeat("é", 100)
	if NodeWidth(long) != NodeWidth(Truncate(long, LabelMaxRunes)) {
		t.Errorf("long labels are sized as drawn, truncated")
	}
	if got := Truncate("abcdef", 4); got != "abc…" {
		t.Errorf("Truncate = %q", got)
	}
	if math.IsNaN(EdgeLabelWidth("")) {
		t.Error("NaN")
	}
}

func TestLayoutManyLongEdges(t *testing.T) {
	// Every call reads the first call's output and its predecessor's: the
	// long edges alone would need millions of virtual nodes.
	n := 3000
	if testing.Short() {
		n = 600
	}
	var b strings.Builder
	b.WriteString(`[{"_tool":"root","_outputPath":"†state.cfg"}`)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `,{"_tool":"t","c":"†state.cfg","p":"†state.s%d","_outputPath":"†state.s%d"}`, i-1, i)
	}
	b.WriteString("]")
	p := mustParse(t, b.String())
	checkGeometry(t, p.Graph, Layout(p.Graph))
}

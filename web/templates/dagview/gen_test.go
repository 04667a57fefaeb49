package dagview

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/dag"
)

// randomPlanJSON builds a seeded layered random plan: n calls in layers of
// about √n calls; each call after the first layer reads one or two (1.5 on
// average) outputs of the previous layer, or now and then of the one before,
// so some edges span two layers.
func randomPlanJSON(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	width := max(4, int(math.Sqrt(float64(n))))
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		layer := i / width
		fmt.Fprintf(&b, `{"_tool":"tool_%d","_outputPath":"†state.v%d"`, i%17, i)
		if layer > 0 {
			reads := 1 + r.IntN(2)
			seen := map[int]bool{}
			for k := 0; k < reads; k++ {
				from := layer - 1
				if layer > 1 && r.IntN(4) == 0 {
					from = layer - 2
				}
				src := from*width + r.IntN(width)
				if seen[src] {
					continue
				}
				seen[src] = true
				fmt.Fprintf(&b, `,"in%d":"†state.v%d"`, k, src)
			}
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return []byte(b.String())
}

func randomPlan(tb testing.TB, n int, seed uint64) *dag.Plan {
	tb.Helper()
	p, err := dag.Parse(json.RawMessage(randomPlanJSON(n, seed)))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// dotSource renders g for Graphviz with the same labels and box shapes the
// SVG uses, so the comparison is like for like.
func dotSource(g *dag.Graph) string {
	var b strings.Builder
	b.WriteString("digraph plan {\nnode [shape=box, style=rounded, fontsize=13];\nedge [fontsize=11];\n")
	for i, n := range g.Nodes {
		fmt.Fprintf(&b, "n%d [label=%q];\n", i, n.Label)
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "n%d -> n%d [label=%q];\n", e.From, e.To, e.Label)
	}
	b.WriteString("}\n")
	return b.String()
}

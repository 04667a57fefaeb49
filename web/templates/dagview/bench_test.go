package dagview

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/plandash/plandash/internal/dag"
)

// benchSizes are the plan sizes the performance goals name.
var benchSizes = []int{100, 1000, 5000}

// memPerCall reports heap bytes allocated per call of the plan, the figure
// the issue asks for, next to the usual B/op.
func memPerCall(b *testing.B, calls int, run func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		run()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(calls), "B/call")
}

// BenchmarkLayoutSVG is the goal: from the plan's JSON text to its SVG — parse, layout, dry run
// and render — the same span BenchmarkDot times dot over (it reads and parses its file too).
func BenchmarkLayoutSVG(b *testing.B) {
	for _, n := range benchSizes {
		raw := json.RawMessage(randomPlanJSON(n, 1))
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			memPerCall(b, n, func() {
				p, err := dag.Parse(raw)
				if err != nil {
					b.Fatal(err)
				}
				v := NewPlanView("bench", p)
				if err := Diagram(v).Render(context.Background(), io.Discard); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkLayout isolates dag.Layout.
func BenchmarkLayout(b *testing.B) {
	for _, n := range append([]int{dag.AutogMaxNodes}, benchSizes...) {
		p := randomPlan(b, n, 1)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			memPerCall(b, n, func() { dag.Layout(p.Graph) })
		})
	}
}

// BenchmarkRender isolates the templ components on a laid-out plan.
func BenchmarkRender(b *testing.B) {
	for _, n := range benchSizes {
		v := NewPlanView("bench", randomPlan(b, n, 1))
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			memPerCall(b, n, func() {
				ctx := context.Background()
				_ = Diagram(v).Render(ctx, io.Discard)
				_ = Table(v).Render(ctx, io.Discard)
			})
		})
	}
}

// BenchmarkDot runs Graphviz on the same plans in the same run, for
// comparison with BenchmarkLayoutSVG; the process start is inside, as dot
// has no other way to be used. go run ./bench layout alternates the two. It needs /usr/bin/dot (Debian
// package graphviz) and is skipped in -short mode, as dot takes minutes on
// the largest plan.
func BenchmarkDot(b *testing.B) {
	if testing.Short() {
		b.Skip("dot comparison skipped in -short mode")
	}
	dot, err := exec.LookPath("dot")
	if err != nil {
		b.Skip("Graphviz dot not found (apt-get install graphviz); skipping the comparison")
	}
	for _, n := range benchSizes {
		p := randomPlan(b, n, 1)
		file := filepath.Join(b.TempDir(), "plan.dot")
		if err := os.WriteFile(file, []byte(dotSource(p.Graph)), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(dot, "-Tsvg", "-o", os.DevNull, file).CombinedOutput(); err != nil {
					b.Fatalf("dot: %v\n%s", err, out)
				}
			}
		})
	}
}

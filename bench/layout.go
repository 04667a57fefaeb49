package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/web/templates/dagview"
)

// randomPlanJSON is a layered tool-call plan of n calls, each reading one or two outputs of the
// layer above (sometimes two above): the shape agents' plans have, at any size.
func randomPlanJSON(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	width := max(4, int(math.Sqrt(float64(n))))
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		layer := i / width
		fmt.Fprintf(&b, `{"_tool":"tool_%d","_outputPath":"†state.v%d"`, i%17, i)
		if layer > 0 {
			seen := map[int]bool{}
			for k := range 1 + r.IntN(2) {
				from := layer - 1
				if layer > 1 && r.IntN(4) == 0 {
					from = layer - 2
				}
				src := from*width + r.IntN(width)
				if !seen[src] {
					seen[src] = true
					fmt.Fprintf(&b, `,"in%d":"†state.v%d"`, k, src)
				}
			}
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return b.String()
}

// dotSource is the plan's graph for Graphviz, with the labels and box shapes the SVG uses.
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

// benchLayout times a tool-call plan from its JSON text to an SVG, against `dot -Tsvg` from its
// text to an SVG: parsing is inside both timed regions, and so is dot's process start.
func benchLayout(ctx context.Context, e *env) (*table, error) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		return nil, errors.New("graphviz dot not found: apt-get install -y graphviz (scripts/bench.sh does)")
	}
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	sizes := []int{100, 1000}
	if e.quick {
		sizes = []int{100, 300}
	}
	t := &table{title: "layout: plan text → SVG",
		yard: "dot -Tsvg FILE (Graphviz, the same nodes, labels and edges), process start included"}
	for _, n := range sizes {
		calls := randomPlanJSON(n, 1)
		p, err := dag.Parse(json.RawMessage(calls))
		if err != nil {
			return nil, err
		}
		file := filepath.Join(e.dir, fmt.Sprintf("plan-%d.dot", n))
		if err := os.WriteFile(file, []byte(dotSource(p.Graph)), 0o600); err != nil {
			return nil, err
		}
		served := &row{name: fmt.Sprintf("%d calls, real server: ingest + session page", n), unit: "ms"}
		inproc := &row{name: fmt.Sprintf("%d calls, in process: parse + layout + dry run + SVG", n), unit: "ms"}
		for i := range e.runs {
			var dotTime time.Duration
			ours := func() error {
				d, err := e.layoutServed(ctx, pd, calls, fmt.Sprintf("layout-%d-%d", n, i))
				if err != nil {
					return err
				}
				served.ours = append(served.ours, ms(d))
				start := time.Now()
				p, err := dag.Parse(json.RawMessage(calls))
				if err != nil {
					return err
				}
				if err := dagview.Diagram(dagview.NewPlanView("bench", p)).Render(ctx, io.Discard); err != nil {
					return err
				}
				inproc.ours = append(inproc.ours, ms(time.Since(start)))
				return nil
			}
			yard := func() error {
				start := time.Now()
				if out, err := exec.CommandContext(ctx, dot, "-Tsvg", "-o", os.DevNull, file).CombinedOutput(); err != nil {
					return fmt.Errorf("dot: %w: %s", err, out)
				}
				dotTime = time.Since(start)
				return nil
			}
			if err := pair(i, ours, yard); err != nil {
				return nil, err
			}
			served.yard, inproc.yard = append(served.yard, ms(dotTime)), append(inproc.yard, ms(dotTime))
		}
		t.rows = append(t.rows, served, inproc)
		fmt.Fprintf(e.log, "layout %d calls done\n", n)
	}
	t.notes = append(t.notes, "real server: POST the plan as an ACP plan_update, then GET /sessions/{id} and check it holds the <svg>; it also stores the plan and renders the rest of the page")
	return t, nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// layoutServed posts the plan to the real server and fetches the page that draws it.
func (e *env) layoutServed(ctx context.Context, s *server, calls, sid string) (time.Duration, error) {
	line := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"g","calls":%s}}}}`, sid, calls)
	start := time.Now()
	if _, err := e.post(ctx, s.URL+"/api/v1/ingest", line); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/sessions/"+sid, nil)
	if err != nil {
		return 0, err
	}
	page, err := e.do(req)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if !bytes.Contains(page, []byte("<svg")) {
		return 0, fmt.Errorf("the session page of %s has no <svg>", sid)
	}
	return d, nil
}

package dagview

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/dag"
	"golang.org/x/net/html"
)

// problemPlan has one of each problem the diagram marks: a, b write the
// same path; c reads a path no one writes; d and e read each other.
const problemPlan = `[
 {"_id":"a","_tool":"write","_outputPath":"†state.same"},
 {"_id":"b","_tool":"write","_outputPath":"†state.same"},
 {"_id":"c","_tool":"read","x":"†state.nowhere"},
 {"_id":"d","_tool":"loop","x":"†state.e","_outputPath":"†state.d"},
 {"_id":"e","_tool":"loop","x":"†state.d","_outputPath":"†state.e"}
]`

func TestProblemKindsDrawnDistinctly(t *testing.T) {
	p, err := dag.Parse(json.RawMessage(problemPlan))
	if err != nil {
		t.Fatal(err)
	}
	doc := render(t, Diagram(NewPlanView("pk", p)))
	node := func(id string) *html.Node {
		for _, n := range byTestID(doc, "dag-node") {
			if attr(n, "data-node-id") == id {
				return n
			}
		}
		t.Fatalf("no node %s", id)
		return nil
	}
	tests := []struct {
		kind  dag.ProblemKind
		nodes []string
		glyph string
		words string // in the node's accessible name
	}{
		{dag.ProblemDuplicateWriter, []string{"a", "b"}, "2×", "duplicate writer"},
		{dag.ProblemUnresolved, []string{"c"}, "?", "unresolved read"},
		{dag.ProblemCycle, []string{"d", "e"}, "↻", "cycle"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			for _, id := range tt.nodes {
				n := node(id)
				marks := byTestID(n, "dag-mark")
				if len(marks) != 1 || attr(marks[0], "data-kind") != string(tt.kind) || text(marks[0]) != tt.glyph {
					t.Errorf("node %s marks: %d, want one %s badge %q", id, len(marks), tt.kind, tt.glyph)
				}
				if !hasClass(n, "dag-mark-node-"+string(tt.kind)) {
					t.Errorf("node %s lacks the class that draws its outline: %q", id, attr(n, "class"))
				}
				if !strings.Contains(attr(n, "aria-label"), tt.words) {
					t.Errorf("node %s is named %q, without %q", id, attr(n, "aria-label"), tt.words)
				}
				double := all(n, func(x *html.Node) bool { return hasClass(x, "dag-node-double") })
				if want := tt.kind == dag.ProblemDuplicateWriter; (len(double) == 1) != want {
					t.Errorf("node %s double outline: %d", id, len(double))
				}
			}
			found := false
			for _, li := range byTestID(doc, "dag-legend-mark") {
				if attr(li, "data-kind") == string(tt.kind) {
					found = strings.Contains(text(li), tt.glyph)
				}
			}
			if !found {
				t.Errorf("the legend does not explain %s", tt.kind)
			}
		})
	}
	// Marks widen their node so the badge never covers the label.
	if r, plain := NewPlanView("pk", p).Geometry.Nodes[2], dag.NodeWidth(p.Graph.Nodes[2].Label); r.W != plain+dag.MarkWidth {
		t.Errorf("node c is %v wide, want %v + one mark", r.W, plain)
	}
}

func TestHiddenLabelsCountedInLegend(t *testing.T) {
	// A wide fan-out: far more labels than fit beside the edges.
	var calls []string
	for i := range 40 {
		calls = append(calls, fmt.Sprintf(`{"_id":"s%d","_tool":"src","_outputPath":"†state.a_long_output_name_%d"}`, i, i))
	}
	var reads []string
	for i := range 40 {
		reads = append(reads, fmt.Sprintf(`"in%d":"†state.a_long_output_name_%d"`, i, i))
	}
	calls = append(calls, `{"_id":"sink","_tool":"merge",`+strings.Join(reads, ",")+`}`)
	p, err := dag.Parse(json.RawMessage("[" + strings.Join(calls, ",") + "]"))
	if err != nil {
		t.Fatal(err)
	}
	v := NewPlanView("hl", p)
	hidden := 0
	for _, s := range v.Geometry.Edges {
		if s.LabelHidden {
			hidden++
		}
	}
	if hidden == 0 {
		t.Fatal("every label of a 40-way fan-in found room: the test graph is too small")
	}
	doc := render(t, Diagram(v))
	if got, want := len(byTestID(doc, "dag-edge-label")), len(v.Graph.Edges)-hidden; got != want {
		t.Errorf("%d labels drawn, want %d", got, want)
	}
	note := byTestID(doc, "dag-legend-hidden-labels")
	if len(note) != 1 || !strings.HasPrefix(text(note[0]), fmt.Sprintf("%d edge labels", hidden)) {
		t.Errorf("legend note %d: %q", len(note), text(doc))
	}
	// Every hidden label stays readable in its edge's tooltip.
	for i, e := range byTestID(doc, "dag-edge") {
		if title := childText(e, "title"); !strings.Contains(title, v.Graph.Edges[i].Label) {
			t.Errorf("edge %d tooltip %q lacks its label", i, title)
		}
	}
}

func TestLongTitlesBounded(t *testing.T) {
	title := strings.Repeat("ü", 10_000)
	p, err := dag.Parse(json.RawMessage(`[{"_id":"a","_tool":"t","_title":"` + title + `","_outputPath":"†state.x"},{"_id":"b","_tool":"u","x":"†state.x"}]`))
	if err != nil {
		t.Fatal(err)
	}
	doc := render(t, Diagram(NewPlanView("long", p)))
	n := byTestID(doc, "dag-node")[0]
	for what, s := range map[string]string{
		"data-label": attr(n, "data-label"), "aria-label": attr(n, "aria-label"), "title": childText(n, "title"),
		"edge title": childText(byTestID(doc, "dag-edge")[0], "title"),
	} {
		if runes := len([]rune(s)); runes > maxLongLabel+100 || !strings.Contains(s, "üü…") {
			t.Errorf("%s carries %d runes of a 10,000-rune title", what, runes)
		}
	}
}

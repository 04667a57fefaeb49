// Package dagview draws tool-call plans and generic graphs from
// internal/dag as inline SVG, with an accessible table, a problem list and
// a dry-run summary of the same plan.
//
// Markup contract for scripts and tests: the figure carries
// data-testid="dag-diagram"; nodes are <g data-testid="dag-node"
// data-node-id data-status tabindex="0" data-details="ID">, where ID is the
// id of the node's <details data-testid="dag-node-details"> panel holding
// its arguments and resolved inputs; edges are <g data-testid="dag-edge"
// data-from data-to>. Styling lives in dag.css (classes prefixed "dag-").
package dagview

import (
	"slices"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/dag"
)

// View is everything the components draw. Build it with NewPlanView or
// NewGraphView; set Statuses to show live statuses without re-laying out.
type View struct {
	// ID prefixes every DOM id in the output; it must be unique on the page.
	ID       string
	Graph    *dag.Graph   // what is drawn
	Geometry dag.Geometry // dag.Layout(Graph), possibly cached by the caller
	// Plan and Run (Simulate(Plan)) are nil for generic graphs.
	Plan *dag.Plan
	Run  *dag.DryRun
	// Statuses override node statuses by node id, e.g. from live ACP tool
	// call updates.
	Statuses map[string]dag.Status

	d *derived
}

// derived holds per-node and per-edge facts computed once per view.
type derived struct {
	critNode, probNode []bool
	critEdge, probEdge []bool
	nodeProblems       [][]string // problem kinds per node
}

// NewPlanView lays out and dry-runs p. Layout is the expensive part; a
// caller that caches Geometry per plan revision can build View directly.
func NewPlanView(id string, p *dag.Plan) View {
	return View{ID: id, Graph: p.Graph, Geometry: dag.Layout(p.Graph), Plan: p, Run: dag.Simulate(p)}.ready()
}

// NewGraphView lays out a generic graph.
func NewGraphView(id string, g *dag.Graph) View {
	return View{ID: id, Graph: g, Geometry: dag.Layout(g)}.ready()
}

// ready fills the derived facts once; components call it so that a View
// built by hand works too.
func (v View) ready() View {
	if v.d != nil {
		return v
	}
	if v.ID == "" {
		v.ID = "dag"
	}
	if v.Graph == nil {
		v.Graph = &dag.Graph{}
	}
	n, m := len(v.Graph.Nodes), len(v.Graph.Edges)
	d := &derived{
		critNode: make([]bool, n), probNode: make([]bool, n),
		critEdge: make([]bool, m), probEdge: make([]bool, m),
		nodeProblems: make([][]string, n),
	}
	pair := make(map[[2]int]int, m)
	for i, e := range v.Graph.Edges {
		pair[[2]int{e.From, e.To}] = i
	}
	markPath := func(ids []string, closed bool, nodes, edges []bool) {
		prev := -1
		first := -1
		for _, id := range ids {
			k, ok := v.Graph.NodeIndex(id)
			if !ok {
				continue
			}
			nodes[k] = true
			if prev >= 0 {
				if ei, ok := pair[[2]int{prev, k}]; ok {
					edges[ei] = true
				}
			} else {
				first = k
			}
			prev = k
		}
		if closed && prev >= 0 && first >= 0 {
			if ei, ok := pair[[2]int{prev, first}]; ok {
				edges[ei] = true
			}
		}
	}
	if v.Run != nil {
		markPath(v.Run.CriticalPath, false, d.critNode, d.critEdge)
	}
	for _, pr := range v.problems() {
		if pr.Kind == dag.ProblemCycle {
			markPath(pr.Calls, true, d.probNode, d.probEdge)
		}
		for _, id := range pr.Calls {
			if k, ok := v.Graph.NodeIndex(id); ok {
				d.probNode[k] = true
				if !containsString(d.nodeProblems[k], string(pr.Kind)) {
					d.nodeProblems[k] = append(d.nodeProblems[k], string(pr.Kind))
				}
			}
		}
	}
	v.d = d
	return v
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (v View) problems() []dag.Problem {
	if v.Plan == nil {
		return nil
	}
	return v.Plan.Problems
}

// status is the node's live status if known, else the one in the plan.
func (v View) status(i int) dag.Status {
	n := v.Graph.Nodes[i]
	if s, ok := v.Statuses[n.ID]; ok {
		return s
	}
	return n.Status
}

func (v View) call(i int) *dag.Call {
	if v.Plan == nil || i >= len(v.Plan.Calls) {
		return nil
	}
	return &v.Plan.Calls[i]
}

func (v View) callRun(i int) *dag.CallRun {
	if v.Run == nil || i >= len(v.Run.Calls) {
		return nil
	}
	return &v.Run.Calls[i]
}

func (v View) detailsID(i int) string { return v.ID + "-n" + strconv.Itoa(i) }

func (v View) nodeClass(i int) string { return v.classes("dag-node", i) }

// rowClass styles table rows like their nodes without making them nodes.
func (v View) rowClass(i int) string { return v.classes("dag-row", i) }

func (v View) classes(base string, i int) string {
	var b strings.Builder
	b.WriteString(base)
	b.WriteString(" dag-status-")
	b.WriteString(statusName(v.status(i)))
	if v.d.critNode[i] {
		b.WriteString(" dag-critical")
	}
	if v.d.probNode[i] {
		b.WriteString(" dag-has-problem")
	}
	for _, m := range v.Graph.Nodes[i].Marks {
		b.WriteString(" dag-mark-node-")
		b.WriteString(string(m))
	}
	return b.String()
}

func (v View) edgeClass(i int) string {
	var b strings.Builder
	b.WriteString("dag-edge")
	if v.Geometry.Edges[i].Back {
		b.WriteString(" dag-edge-back")
	}
	if v.d.critEdge[i] {
		b.WriteString(" dag-critical")
	}
	if v.d.probEdge[i] {
		b.WriteString(" dag-has-problem")
	}
	return b.String()
}

// marker picks the arrowhead so it matches the edge's colour.
func (v View) marker(i int) string {
	kind := "arrow"
	switch {
	case v.d.probEdge[i]:
		kind = "arrow-problem"
	case v.d.critEdge[i]:
		kind = "arrow-critical"
	}
	return "url(#" + v.ID + "-" + kind + ")"
}

func (v View) nodeLabel(id string) string {
	k, ok := v.Graph.NodeIndex(id)
	if !ok {
		return id
	}
	n := v.Graph.Nodes[k]
	if n.Label == n.ID {
		return n.Label
	}
	return n.Label + " (" + n.ID + ")"
}

func (v View) nodeLabels(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = v.nodeLabel(id)
	}
	return out
}

func (v View) ariaLabel() string {
	what := "Graph"
	if v.Plan != nil {
		what = "Plan"
	}
	return what + " diagram: " + strconv.Itoa(len(v.Graph.Nodes)) + " nodes, " + strconv.Itoa(len(v.Graph.Edges)) + " edges"
}

// legendFacts is what the legend lists: only what the drawing shows.
type legendFacts struct {
	statuses       []dag.Status
	critical, back bool
	marks          []dag.ProblemKind
	hiddenLabels   int
}

func (v View) legend() legendFacts {
	var l legendFacts
	for i, n := range v.Graph.Nodes {
		if st := v.status(i); !slices.Contains(l.statuses, st) {
			l.statuses = append(l.statuses, st)
		}
		for _, m := range n.Marks {
			if !slices.Contains(l.marks, m) {
				l.marks = append(l.marks, m)
			}
		}
		l.critical = l.critical || v.d.critNode[i]
	}
	slices.SortFunc(l.statuses, func(a, b dag.Status) int { return statusRank(a) - statusRank(b) })
	for i, s := range v.Geometry.Edges {
		l.back = l.back || s.Back
		if s.LabelHidden && v.Graph.Edges[i].Label != "" {
			l.hiddenLabels++
		}
	}
	return l
}

// nodeAria names a node for assistive technology: its label, status and
// problems, which the drawing shows with glyphs and strokes.
func (v View) nodeAria(i int) string {
	n := v.Graph.Nodes[i]
	return longLabel(n.Label) + ", " + statusText(v.status(i)) + marksText(n.Marks)
}

// maxLongLabel bounds the untruncated copies of agent text a node carries
// (its name, tooltip and the text find searches): each is repeated per node,
// and a plan's titles are the agent's to choose.
const maxLongLabel = 300

func longLabel(s string) string { return dag.Truncate(s, maxLongLabel) }

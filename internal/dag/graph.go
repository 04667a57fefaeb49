package dag

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Graph is what gets validated, simulated and drawn: nodes in plan order and
// directed edges between them.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	index map[string]int
}

// Node is one call of a plan or one node of a generic graph.
type Node struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Status is empty for generic-graph nodes that carry none.
	Status Status `json:"status,omitempty"`
	// Marks are the kinds of problem the node takes part in, each drawn as
	// a badge on its box (so problems never rest on colour alone); Layout
	// widens the box by MarkWidth per mark to hold them.
	Marks []ProblemKind `json:"-"`
}

// Edge points from From to To, both indices into Graph.Nodes; indices keep
// layout and simulation free of map lookups.
type Edge struct {
	From  int    `json:"from"`
	To    int    `json:"to"`
	Label string `json:"label,omitempty"`
	// Paths are the state paths the reader takes from the writer, in the
	// order the reader first uses them; empty for generic graphs.
	Paths []Path `json:"paths,omitempty"`
}

// NodeIndex returns the position of the node with the given id.
func (g *Graph) NodeIndex(id string) (int, bool) {
	i, ok := g.index[id]
	return i, ok
}

// adjacency lists, per node, the indices of its outgoing and incoming edges.
func (g *Graph) adjacency() (out, in [][]int) {
	out = make([][]int, len(g.Nodes))
	in = make([][]int, len(g.Nodes))
	for i, e := range g.Edges {
		out[e.From] = append(out[e.From], i)
		in[e.To] = append(in[e.To], i)
	}
	return out, in
}

// MaxEdges bounds the data-flow edges of a plan. Edges can grow with the
// square of the calls (every call reading "†state" depends on every
// writer); real plans have one or two per call, and the bound keeps a
// hostile plan from taking the server's memory.
const MaxEdges = 200_000

// build derives the data-flow graph and validates the plan. A call reading
// P depends on every call writing P, an ancestor of P (which produces P) or
// a descendant of P (which changes part of P).
func (p *Plan) build(index map[string]int) error {
	g := &Graph{Nodes: make([]Node, len(p.Calls)), index: index}
	p.writers = make(map[Path][]int)
	for i := range p.Calls {
		c := &p.Calls[i]
		g.Nodes[i] = Node{ID: c.ID, Label: c.Label(), Status: c.Status}
		if c.Output != "" {
			p.writers[c.Output] = append(p.writers[c.Output], i)
		}
	}
	p.writerPaths = make([]Path, 0, len(p.writers))
	for path := range p.writers {
		p.writerPaths = append(p.writerPaths, path)
	}
	slices.Sort(p.writerPaths)

	// Every read path's writers are worked out once, here: a plan may
	// repeat one path thousands of times, and Simulate must only read the
	// cache so that concurrent dry runs of one plan do not race.
	p.overlap = make(map[Path][]int)
	edgeAt := make(map[[2]int]int)
	for ci := range p.Calls {
		for _, r := range p.Calls[ci].Reads {
			ws, ok := p.overlap[r.Path]
			if !ok {
				ws = p.findWriters(r.Path)
				p.overlap[r.Path] = ws
			}
			for _, w := range ws {
				if w == ci {
					continue // a self read is a problem, not an edge
				}
				key := [2]int{w, ci}
				ei, ok := edgeAt[key]
				if !ok {
					if len(g.Edges) == MaxEdges {
						return fmt.Errorf("%w: more than %d data-flow edges (call %d and earlier read state written by many calls)", ErrInvalid, MaxEdges, ci)
					}
					ei = len(g.Edges)
					edgeAt[key] = ei
					g.Edges = append(g.Edges, Edge{From: w, To: ci})
				}
				if e := &g.Edges[ei]; !slices.Contains(e.Paths, r.Path) {
					e.Paths = append(e.Paths, r.Path)
				}
			}
		}
	}
	for i := range g.Edges {
		g.Edges[i].Label = joinPaths(g.Edges[i].Paths)
	}
	p.Graph = g
	if err := p.resolveInitial(); err != nil {
		return err
	}
	p.validate()
	p.markNodes()
	return nil
}

// markNodes copies each problem's kind onto the nodes of its calls, once
// per kind, in the order the problems were found.
func (p *Plan) markNodes() {
	for _, pr := range p.Problems {
		for _, id := range pr.Calls {
			k, ok := p.Graph.NodeIndex(id)
			if ok && !slices.Contains(p.Graph.Nodes[k].Marks, pr.Kind) {
				p.Graph.Nodes[k].Marks = append(p.Graph.Nodes[k].Marks, pr.Kind)
			}
		}
	}
}

func joinPaths(ps []Path) string {
	if len(ps) == 1 {
		return string(ps[0])
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// overlappingWriters returns, in call order, the calls whose output equals,
// contains or lies inside path.
func (p *Plan) overlappingWriters(path Path) []int {
	if ws, ok := p.overlap[path]; ok {
		return ws
	}
	return p.findWriters(path)
}

// findWriters does the work for overlappingWriters. Ancestors are found by
// cutting the path; descendants by a range search in the sorted output
// paths, so the cost follows the number of matches, not the plan size.
func (p *Plan) findWriters(path Path) []int {
	var out []int
	out = append(out, p.writers[path]...)
	path.ancestors(func(a Path) { out = append(out, p.writers[a]...) })
	for _, sep := range []string{".", "["} {
		prefix := string(path) + sep
		i := sort.Search(len(p.writerPaths), func(i int) bool { return string(p.writerPaths[i]) >= prefix })
		for ; i < len(p.writerPaths) && strings.HasPrefix(string(p.writerPaths[i]), prefix); i++ {
			out = append(out, p.writers[p.writerPaths[i]]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

package dag

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ProblemKind classifies a Problem.
type ProblemKind string

// The kinds of problem a plan can have.
const (
	// ProblemCycle: calls that depend on each other in a loop; none of them
	// can ever run.
	ProblemCycle ProblemKind = "cycle"
	// ProblemUnresolved: a read of state that no call writes and the initial
	// state (of every instance, or of those listed) lacks.
	ProblemUnresolved ProblemKind = "unresolved_read"
	// ProblemDuplicateWriter: two or more calls write the same path, so the
	// result depends on which runs last.
	ProblemDuplicateWriter ProblemKind = "duplicate_writer"
	// ProblemSelfRead: a call reads its own output, which cannot exist yet.
	ProblemSelfRead ProblemKind = "self_read"
	// ProblemMissingTool: a call without a usable "_tool".
	ProblemMissingTool ProblemKind = "missing_tool"
	// ProblemMalformedPath: a "_outputPath" or a reference that starts like
	// a state path but does not follow the grammar.
	ProblemMalformedPath ProblemKind = "malformed_path"
)

// Problem is one fault in a plan, with what a person needs to fix it.
type Problem struct {
	Kind    ProblemKind `json:"kind"`
	Message string      `json:"message"`
	// Calls are the ids involved; for a cycle, the cycle itself in order.
	Calls []string `json:"calls,omitempty"`
	// Paths are the state paths involved; for a cycle, the path carried by
	// each edge of the cycle, starting with Calls[0] → Calls[1].
	Paths []string `json:"paths,omitempty"`
	// Instances lists the instances whose initial state lacks an unresolved
	// read; empty when the plan has no "_instances".
	Instances []int `json:"instances,omitempty"`
}

func (p *Plan) problem(pr Problem) { p.Problems = append(p.Problems, pr) }

// validate adds the problems that need the whole graph; missing tools and
// malformed paths were found while parsing.
func (p *Plan) validate() {
	p.checkSelfReads()
	p.checkDuplicateWriters()
	p.checkUnresolved()
	p.checkCycles()
}

func (p *Plan) checkSelfReads() {
	for i := range p.Calls {
		c := &p.Calls[i]
		if c.Output == "" {
			continue
		}
		seen := map[Path]bool{}
		for _, r := range c.Reads {
			if !r.Path.Overlaps(c.Output) || seen[r.Path] {
				continue
			}
			seen[r.Path] = true
			p.problem(Problem{Kind: ProblemSelfRead, Calls: []string{c.ID}, Paths: []string{string(r.Path)},
				Message: fmt.Sprintf("%s reads %s at %s, but that is its own output %s", callName(c), r.Path, r.At, c.Output)})
		}
	}
}

func (p *Plan) checkDuplicateWriters() {
	for _, path := range p.writerPaths {
		ws := p.writers[path]
		if len(ws) < 2 {
			continue
		}
		ids := make([]string, len(ws))
		names := make([]string, len(ws))
		for i, w := range ws {
			ids[i] = p.Calls[w].ID
			names[i] = callName(&p.Calls[w])
		}
		p.problem(Problem{Kind: ProblemDuplicateWriter, Calls: ids, Paths: []string{string(path)},
			Message: fmt.Sprintf("%s all write %s; the result depends on which runs last", strings.Join(names, ", "), path)})
	}
}

// checkUnresolved reports reads that neither another call nor the initial
// state provides. With instances each initial state is checked on its own.
func (p *Plan) checkUnresolved() {
	for i := range p.Calls {
		c := &p.Calls[i]
		seen := map[Path]bool{}
		for _, r := range c.Reads {
			if seen[r.Path] || (c.Output != "" && r.Path.Overlaps(c.Output)) {
				continue // reported as a self read already
			}
			seen[r.Path] = true
			if p.writtenByOther(r.Path, i) {
				continue
			}
			missing := slices.Clone(p.missing[r.Path])
			if len(missing) == 0 {
				continue
			}
			pr := Problem{Kind: ProblemUnresolved, Calls: []string{c.ID}, Paths: []string{string(r.Path)}}
			switch {
			case p.Instances == nil:
				pr.Message = fmt.Sprintf("%s reads %s at %s, but no call writes it and the initial state lacks it", callName(c), r.Path, r.At)
			default:
				pr.Instances = missing
				pr.Message = fmt.Sprintf("%s reads %s at %s, but no call writes it and the initial state of %s lacks it", callName(c), r.Path, r.At, instanceList(missing, len(p.Instances)))
			}
			p.problem(pr)
		}
	}
}

func (p *Plan) writtenByOther(path Path, self int) bool {
	for _, w := range p.overlappingWriters(path) {
		if w != self {
			return true
		}
	}
	return false
}

func instanceList(ids []int, total int) string {
	if len(ids) == total && total > 1 {
		return "every instance"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	if len(ids) == 1 {
		return "instance " + s[0]
	}
	return "instances " + strings.Join(s, ", ")
}

// checkCycles reports one cycle per strongly connected component, so a
// tangle of calls yields one readable loop rather than every loop in it.
func (p *Plan) checkCycles() {
	g := p.Graph
	out, _ := g.adjacency()
	for _, comp := range stronglyConnected(len(g.Nodes), g.Edges, out) {
		cycle, edges := findCycle(comp, g.Edges, out)
		ids := make([]string, len(cycle))
		names := make([]string, len(cycle)+1)
		paths := make([]string, len(edges))
		for i, n := range cycle {
			ids[i] = p.Calls[n].ID
			names[i] = callName(&p.Calls[n])
		}
		names[len(cycle)] = names[0]
		for i, e := range edges {
			paths[i] = g.Edges[e].Label
		}
		msg := fmt.Sprintf("%s form a cycle (through %s); none of them can run", strings.Join(names, " → "), strings.Join(paths, "; "))
		if len(comp) > len(cycle) {
			msg += fmt.Sprintf(" (%d calls are tangled in this loop)", len(comp))
		}
		p.problem(Problem{Kind: ProblemCycle, Calls: ids, Paths: paths, Message: msg})
	}
}

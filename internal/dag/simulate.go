package dag

import (
	"container/heap"
	"encoding/json"
	"slices"
)

// DryRun is what running a plan would do, worked out without running it.
type DryRun struct {
	// Order is a topological order, choosing the earliest call in the plan
	// whenever several are ready, so it reads like the plan itself.
	Order []string `json:"order"`
	// Levels group calls that can run at the same time: level 0 needs
	// nothing, level k needs something from level k-1.
	Levels [][]string `json:"levels"`
	// CriticalPath is a longest dependency chain by call count; among
	// equals the one with earlier calls wins.
	CriticalPath []string `json:"criticalPath"`
	// Calls describe each call, in plan order.
	Calls []CallRun `json:"calls"`
	// Blocked are calls in a cycle or depending on one; they never run.
	Blocked []string `json:"blocked,omitempty"`
	// Runs has one entry per instance, or a single one for a plan without
	// "_instances".
	Runs []Run `json:"runs"`
}

// CallRun is one call in a dry run.
type CallRun struct {
	ID string `json:"id"`
	// Level is the call's parallel level, -1 when blocked.
	Level  int     `json:"level"`
	Reads  []Input `json:"reads,omitempty"`
	Writes Path    `json:"writes,omitempty"`
}

// Input is a read and where its value comes from.
type Input struct {
	Path Path   `json:"path"`
	At   string `json:"at"`
	// From are the ids of the calls whose output the read observes.
	From []string `json:"from,omitempty"`
	// Initial is set when some run's initial state holds the path.
	Initial bool `json:"initial,omitempty"`
	// Value is the initial value for a plan without instances when no
	// call writes the path, so a person sees what the call will get.
	Value json.RawMessage `json:"value,omitempty"`
}

// Run is the outcome for one initial state.
type Run struct {
	// Instance is the index in "_instances", or -1 for a plan without them.
	Instance   int              `json:"instance"`
	Unresolved []UnresolvedRead `json:"unresolved,omitempty"`
	// FinalKeys are the state paths that exist after the run: the initial
	// state's top-level keys plus every output written, sorted.
	FinalKeys []Path `json:"finalKeys"`
}

// UnresolvedRead is a read that will find nothing in one run.
type UnresolvedRead struct {
	Call string `json:"call"`
	Path Path   `json:"path"`
}

// Simulate dry-runs the plan. Cycles do not stop it: the acyclic part is
// simulated and the rest reported as Blocked.
func Simulate(p *Plan) *DryRun {
	g := p.Graph
	n := len(g.Nodes)
	out, in := g.adjacency()
	order, level := topoLevels(n, g.Edges, out, in)
	d := &DryRun{Calls: make([]CallRun, n)}
	done := make([]bool, n)
	for _, v := range order {
		done[v] = true
		d.Order = append(d.Order, g.Nodes[v].ID)
		for len(d.Levels) <= level[v] {
			d.Levels = append(d.Levels, nil)
		}
		d.Levels[level[v]] = append(d.Levels[level[v]], g.Nodes[v].ID)
	}
	for _, lv := range d.Levels {
		slices.SortFunc(lv, func(a, b string) int { return g.index[a] - g.index[b] })
	}
	d.CriticalPath = criticalPath(g, order, in)
	from := map[Path][]string{}
	for i := range p.Calls {
		c := &p.Calls[i]
		cr := CallRun{ID: c.ID, Level: -1, Writes: c.Output}
		if done[i] {
			cr.Level = level[i]
		} else {
			d.Blocked = append(d.Blocked, c.ID)
		}
		for _, r := range c.Reads {
			cr.Reads = append(cr.Reads, p.input(i, r, from))
		}
		d.Calls[i] = cr
	}
	open, self := p.openReads(done)
	for run, st := range p.states {
		r := Run{Instance: run, FinalKeys: p.finalKeys(st, done)}
		if p.Instances == nil {
			r.Instance = -1
		}
		for k, u := range open {
			if self[k] || p.lacks(u.Path, run) {
				r.Unresolved = append(r.Unresolved, u)
			}
		}
		d.Runs = append(d.Runs, r)
	}
	return d
}

// input resolves one read of call ci. from caches writer ids per path:
// a call may repeat one path thousands of times.
func (p *Plan) input(ci int, r Ref, from map[Path][]string) Input {
	in := Input{Path: r.Path, At: r.At, Initial: len(p.missing[r.Path]) < len(p.states)}
	ids, ok := from[r.Path]
	if !ok {
		for _, w := range p.overlappingWriters(r.Path) {
			ids = append(ids, p.Calls[w].ID)
		}
		from[r.Path] = ids
	}
	in.From = ids
	if slices.Contains(p.overlappingWriters(r.Path), ci) {
		in.From = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == p.Calls[ci].ID })
		if len(in.From) == 0 {
			in.From = nil
		}
	}
	if in.Initial && in.From == nil && p.Instances == nil {
		if v, ok := r.Path.value(p.states[0]); ok {
			in.Value, _ = json.Marshal(v)
		}
	}
	return in
}

// finalKeys lists the state paths that exist after a run from st: its
// top-level keys and every output of a call that ran.
func (p *Plan) finalKeys(st any, done []bool) []Path {
	keys := map[Path]bool{}
	if m, ok := st.(map[string]any); ok {
		for k := range m {
			if path, err := ParsePath(StateRoot + "." + k); err == nil {
				keys[path] = true
			}
		}
	}
	for i := range p.Calls {
		if done[i] && p.Calls[i].Output != "" {
			keys[p.Calls[i].Output] = true
		}
	}
	final := make([]Path, 0, len(keys))
	for k := range keys {
		final = append(final, k)
	}
	slices.Sort(final)
	return final
}

// topoLevels runs Kahn's algorithm with the smallest ready index first.
// Nodes in or behind a cycle never become ready and are left out.
func topoLevels(n int, edges []Edge, out, in [][]int) (order, level []int) {
	indeg := make([]int, n)
	for v := range n {
		indeg[v] = len(in[v])
	}
	level = make([]int, n)
	ready := &intHeap{}
	for v := range n {
		if indeg[v] == 0 {
			ready.items = append(ready.items, v)
		}
	}
	heap.Init(ready)
	for ready.Len() > 0 {
		v := heap.Pop(ready).(int)
		order = append(order, v)
		for _, ei := range out[v] {
			w := edges[ei].To
			level[w] = max(level[w], level[v]+1)
			if indeg[w]--; indeg[w] == 0 {
				heap.Push(ready, w)
			}
		}
	}
	return order, level
}

// criticalPath finds a longest chain by call count. Earlier calls win ties,
// both for where the chain ends and for which predecessor it comes from.
func criticalPath(g *Graph, order []int, in [][]int) []string {
	if len(order) == 0 {
		return nil
	}
	n := len(g.Nodes)
	dist := make([]int, n)
	prev := make([]int, n)
	best := -1
	for _, v := range order {
		dist[v], prev[v] = 1, -1
		for _, ei := range in[v] {
			u := g.Edges[ei].From
			if d := dist[u] + 1; d > dist[v] || (d == dist[v] && prev[v] >= 0 && u < prev[v]) {
				dist[v], prev[v] = d, u
			}
		}
		if best < 0 || dist[v] > dist[best] || (dist[v] == dist[best] && v < best) {
			best = v
		}
	}
	var path []string
	for v := best; v >= 0; v = prev[v] {
		path = append(path, g.Nodes[v].ID)
	}
	slices.Reverse(path)
	return path
}

// intHeap is a min-heap of node indices.
type intHeap struct{ items []int }

func (h *intHeap) Len() int           { return len(h.items) }
func (h *intHeap) Less(i, j int) bool { return h.items[i] < h.items[j] }
func (h *intHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *intHeap) Push(x any)         { h.items = append(h.items, x.(int)) }
func (h *intHeap) Pop() any {
	v := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return v
}

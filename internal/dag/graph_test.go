package dag

import (
	"slices"
	"strings"
	"testing"
)

// edgeList renders edges as "from>to:label" using call ids.
func edgeList(p *Plan) []string {
	var out []string
	for _, e := range p.Graph.Edges {
		out = append(out, p.Graph.Nodes[e.From].ID+">"+p.Graph.Nodes[e.To].ID+":"+e.Label)
	}
	return out
}

func TestEdgeDerivation(t *testing.T) {
	tests := []struct {
		name  string
		calls string
		want  []string
	}{
		{"exact path",
			`{"_id":"w","_tool":"t","_outputPath":"†state.a"},{"_id":"r","_tool":"t","x":"†state.a"}`,
			[]string{"w>r:†state.a"}},
		{"writer is an ancestor of the read",
			`{"_id":"w","_tool":"t","_outputPath":"†state.user"},{"_id":"r","_tool":"t","x":"†state.user.name"}`,
			[]string{"w>r:†state.user.name"}},
		{"writer is a descendant of the read",
			`{"_id":"w","_tool":"t","_outputPath":"†state.user.name"},{"_id":"r","_tool":"t","x":"†state.user"}`,
			[]string{"w>r:†state.user"}},
		{"sibling paths are independent",
			`{"_id":"w","_tool":"t","_outputPath":"†state.user.name"},{"_id":"r","_tool":"t","x":"†state.user.mail"}`,
			nil},
		{"a name prefix is not an ancestor",
			`{"_id":"w","_tool":"t","_outputPath":"†state.ab"},{"_id":"r","_tool":"t","x":"†state.a"}`,
			nil},
		{"array element written, array read",
			`{"_id":"w","_tool":"t","_outputPath":"†state.list[0]"},{"_id":"r","_tool":"t","x":"†state.list"}`,
			[]string{"w>r:†state.list"}},
		{"array written, element field read",
			`{"_id":"w","_tool":"t","_outputPath":"†state.list"},{"_id":"r","_tool":"t","x":"†state.list[2].name"}`,
			[]string{"w>r:†state.list[2].name"}},
		{"other array elements are independent",
			`{"_id":"w","_tool":"t","_outputPath":"†state.list[1]"},{"_id":"r","_tool":"t","x":"†state.list[10]"}`,
			nil},
		{"references nested in objects and arrays",
			`{"_id":"w","_tool":"t","_outputPath":"†state.a"},{"_id":"r","_tool":"t","opts":{"deep":[1,{"x":["†state.a"]}]}}`,
			[]string{"w>r:†state.a"}},
		{"every overlapping writer",
			`{"_id":"w1","_tool":"t","_outputPath":"†state.a"},{"_id":"w2","_tool":"t","_outputPath":"†state.a.b"},{"_id":"w3","_tool":"t","_outputPath":"†state.a.b.c.d"},{"_id":"r","_tool":"t","x":"†state.a.b.c"}`,
			[]string{"w1>r:†state.a.b.c", "w2>r:†state.a.b.c", "w3>r:†state.a.b.c"}},
		{"several paths through one edge",
			`{"_id":"w","_tool":"t","_outputPath":"†state.u"},{"_id":"r","_tool":"t","x":"†state.u.name","y":["†state.u.mail","†state.u.name"]}`,
			[]string{"w>r:†state.u.name, †state.u.mail"}},
		{"the root reads everything",
			`{"_id":"w1","_tool":"t","_outputPath":"†state.a"},{"_id":"w2","_tool":"t","_outputPath":"†state.b[0]"},{"_id":"r","_tool":"t","x":"†state"}`,
			[]string{"w1>r:†state", "w2>r:†state"}},
		{"escaped dagger",
			`{"_id":"w","_tool":"t","_outputPath":"\u2020state.a"},{"_id":"r","_tool":"t","x":"\u2020state.a"}`,
			[]string{"w>r:†state.a"}},
		{"only whole strings are references",
			`{"_id":"w","_tool":"t","_outputPath":"†state.a"},{"_id":"r","_tool":"t","x":"see †state.a","†state.a":1,"y":{"†state.a":2}}`,
			nil},
		{"order follows readers, then writers",
			`{"_id":"b","_tool":"t","_outputPath":"†state.b"},{"_id":"a","_tool":"t","_outputPath":"†state.a"},{"_id":"r","_tool":"t","x":"†state.a","y":"†state.b"},{"_id":"s","_tool":"t","x":"†state.b"}`,
			[]string{"a>r:†state.a", "b>r:†state.b", "b>s:†state.b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, "["+tt.calls+"]")
			if got := edgeList(p); !slices.Equal(got, tt.want) {
				t.Errorf("edges = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReferenceLocations(t *testing.T) {
	p := mustParse(t, `[{"_tool":"t","a":"†state.x","b":{"c":[0,{"d":"†state.y"}],"odd key":"†state.z"}}]`)
	var got []string
	for _, r := range p.Calls[0].Reads {
		got = append(got, r.At+"="+string(r.Path))
	}
	want := []string{"a=†state.x", "b.c[1].d=†state.y", `b["odd key"]=†state.z`}
	if !slices.Equal(got, want) {
		t.Errorf("reads = %q, want %q", got, want)
	}
}

func TestWriters(t *testing.T) {
	p := mustParse(t, `[{"_tool":"t","_outputPath":"†state.a"},{"_tool":"t","_outputPath":"†state.a.b"},{"_tool":"t","_outputPath":"†state.c"}]`)
	if got := p.Writers("†state.a.b.c"); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Writers = %v", got)
	}
	if c, ok := p.Call("2"); !ok || c.Output != "†state.c" {
		t.Errorf("Call(2) = %v, %v", c, ok)
	}
	if _, ok := p.Call("nope"); ok {
		t.Error("Call(nope) found")
	}
}

func TestParseGraph(t *testing.T) {
	g, err := ParseGraph([]byte(`{"type":"_graph","planId":"m","nodes":[
		{"id":"a","label":"Start"},{"id":"b","status":"completed"},{"id":3}],
		"edges":[{"from":"a","to":"b","label":"go"},{"from":"b","to":"a"},{"from":"a","to":"b","label":"again"},{"from":"3","to":"3"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 3 || g.Nodes[0].Label != "Start" || g.Nodes[1].Label != "b" || g.Nodes[1].Status != StatusCompleted || g.Nodes[2].ID != "3" {
		t.Errorf("nodes = %+v", g.Nodes)
	}
	want := []Edge{{From: 0, To: 1, Label: "go, again"}, {From: 1, To: 0}, {From: 2, To: 2}}
	if len(g.Edges) != len(want) {
		t.Fatalf("edges = %+v", g.Edges)
	}
	for i := range want {
		if g.Edges[i].From != want[i].From || g.Edges[i].To != want[i].To || g.Edges[i].Label != want[i].Label {
			t.Errorf("edge %d = %+v, want %+v", i, g.Edges[i], want[i])
		}
	}
}

func TestParseGraphErrors(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`[]`, "must be an object"},
		{`{"type":"_dag","nodes":[]}`, `not "_graph"`},
		{`{"nodes":[{"label":"x"}]}`, "node 0 has no id"},
		{`{"nodes":[{"id":"a"},{"id":"a"}]}`, `duplicate node id "a"`},
		{`{"nodes":[{"id":"a","status":"ok"}]}`, `status "ok"`},
		{`{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":"b"}]}`, `names node "b", which does not exist`},
		{`{"nodes":[{"id":"a"}],"edges":[{"to":"a"}]}`, `edge 0 has no "from"`},
		{`{"nodes":"x"}`, "graph:"},
	}
	for _, tt := range tests {
		_, err := ParseGraph([]byte(tt.raw))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseGraph(%s) error = %v, want %q", tt.raw, err, tt.want)
		}
	}
}

// Call returns the call with the given id.
func (p *Plan) Call(id string) (*Call, bool) {
	i, ok := p.Graph.NodeIndex(id)
	if !ok {
		return nil, false
	}
	return &p.Calls[i], true
}

// Writers returns the indices of the calls whose output overlaps path, in
// call order: the calls a read of path may observe. The slice is shared;
// do not modify it.
func (p *Plan) Writers(path Path) []int { return p.overlappingWriters(path) }

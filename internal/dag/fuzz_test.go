package dag

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var planSeeds = []string{
	`[{"_tool":"fetch","user":"Alice","_outputPath":"†state.profile"},{"_tool":"sum","p":"†state.profile"}]`,
	`{"type":"_dag","planId":"x","calls":[{"_tool":"a","x":{"y":["†state.q[0].r"]},"_outputPath":"†state.q"}],"_state":{"q":[{"r":1}]}}`,
	`{"calls":[{"_tool":"a","_outputPath":"†state.a","i":"†state.b"},{"_tool":"b","_outputPath":"†state.b","i":"†state.a"}],"_instances":[{},{"a":1}]}`,
	`[{"_id":1,"_tool":"t","_status":"completed","_title":"T","_toolCallId":"c"},{"_id":"1"}]`,
	`[{"_tool":"t","a":"†state..x","_outputPath":"†state[3]"},"oops"]`,
	`[[[[[[]]]]]]`,
	`{"calls":[{"_tool":"t","a":"\u2020state.x"}],"_state":null}`,
}

func FuzzParse(f *testing.F) {
	for _, s := range planSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(json.RawMessage(data))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		g := p.Graph
		if len(g.Nodes) != len(p.Calls) {
			t.Fatalf("%d nodes for %d calls", len(g.Nodes), len(p.Calls))
		}
		for i, c := range p.Calls {
			if j, ok := g.NodeIndex(c.ID); !ok || j != i {
				t.Fatalf("call %d id %q indexed at %d", i, c.ID, j)
			}
			for _, r := range c.Reads {
				if again, err := ParsePath(string(r.Path)); err != nil || again != r.Path {
					t.Fatalf("read path %q is not canonical", r.Path)
				}
			}
		}
		for _, e := range g.Edges {
			if e.From == e.To || e.From < 0 || e.To < 0 || e.From >= len(g.Nodes) || e.To >= len(g.Nodes) || len(e.Paths) == 0 {
				t.Fatalf("bad edge %+v", e)
			}
		}
		d := Simulate(p)
		if len(d.Order)+len(d.Blocked) != len(p.Calls) {
			t.Fatalf("order %d + blocked %d != %d calls", len(d.Order), len(d.Blocked), len(p.Calls))
		}
		if len(d.Blocked) > 0 && p.Valid() {
			t.Fatal("blocked calls in a valid plan")
		}
		if !Diff(p, p).Empty() {
			t.Fatal("a plan differs from itself")
		}
		if len(p.Calls) <= 200 {
			checkGeometry(t, g, Layout(g))
		}
	})
}

func FuzzParseGraph(f *testing.F) {
	f.Add([]byte(`{"type":"_graph","nodes":[{"id":"a"},{"id":"b","status":"failed"}],"edges":[{"from":"a","to":"b"},{"from":"b","to":"a","label":"back"},{"from":"a","to":"a"}]}`))
	f.Add([]byte(`{"nodes":[{"id":1},{"id":2},{"id":3}],"edges":[{"from":1,"to":2},{"from":2,"to":3},{"from":3,"to":1}]}`))
	f.Add([]byte(`{"nodes":[{"id":"x","label":"<b>"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGraph(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if len(g.Nodes) <= 200 {
			checkGeometry(t, g, Layout(g))
		}
	})
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"†state", "†state.a.b[0]", "†state.a[007]", "†state..", "†state.ü-_9[1][2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		again, err := ParsePath(string(p))
		if err != nil || again != p {
			t.Fatalf("ParsePath(%q) = %q, reparsed %q, %v", s, p, again, err)
		}
		if !p.Contains(p) || !Path(StateRoot).Contains(p) {
			t.Fatalf("containment broken for %q", p)
		}
		p.ancestors(func(a Path) {
			if !a.Contains(p) || a == p {
				t.Fatalf("ancestor %q of %q", a, p)
			}
		})
	})
}

// FuzzLayout builds graphs straight from bytes (a node count, then edge
// endpoints) so the fuzzer spends its time in layout, autog included,
// rather than in JSON syntax. Besides the geometry, it checks that no edge
// label meets a node, a line or another label.
func FuzzLayout(f *testing.F) {
	f.Add([]byte{3, 0, 1, 1, 2, 2, 0})
	f.Add([]byte{40, 0, 1, 0, 2, 1, 3, 2, 3, 3, 0, 5, 5, 7, 39})
	f.Add([]byte{200, 0, 199, 1, 198, 2, 100})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := 1 + int(data[0])
		g := &Graph{index: map[string]int{}}
		for i := 0; i < n; i++ {
			id := string(rune('a'+i%26)) + string(rune('0'+i/26))
			g.index[id] = i
			g.Nodes = append(g.Nodes, Node{ID: id, Label: id})
		}
		seen := map[[2]int]bool{}
		for i := 1; i+1 < len(data); i += 2 {
			k := [2]int{int(data[i]) % n, int(data[i+1]) % n}
			if !seen[k] {
				seen[k] = true
				// Labels of varied lengths, so placement meets wide and narrow boxes.
				g.Edges = append(g.Edges, Edge{From: k[0], To: k[1], Label: strings.Repeat("x", 1+(k[0]+2*k[1])%14)})
			}
		}
		geo := Layout(g)
		checkGeometry(t, g, geo)
		checkLabels(t, g, geo)
	})
}

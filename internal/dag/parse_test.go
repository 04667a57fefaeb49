package dag

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func mustParse(t testing.TB, raw string) *Plan {
	t.Helper()
	p, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestParseForms(t *testing.T) {
	calls := `[{"_tool":"fetch","user":"Alice","_outputPath":"†state.profile"},
	           {"_tool":"summarize","profile":"†state.profile"}]`
	forms := map[string]string{
		"array":      calls,
		"object":     `{"calls":` + calls + `}`,
		"acp custom": `{"type":"_dag","planId":"p-1","_meta":{"x":1},"calls":` + calls + `}`,
	}
	for name, raw := range forms {
		t.Run(name, func(t *testing.T) {
			p := mustParse(t, raw)
			if len(p.Calls) != 2 || p.Calls[0].Tool != "fetch" || p.Calls[1].Tool != "summarize" {
				t.Fatalf("calls = %+v", p.Calls)
			}
			if len(p.Graph.Edges) != 1 || p.Graph.Edges[0].From != 0 || p.Graph.Edges[0].To != 1 {
				t.Fatalf("edges = %+v", p.Graph.Edges)
			}
			if !p.Valid() {
				t.Fatalf("problems = %+v", p.Problems)
			}
		})
	}
}

func TestParseCallFields(t *testing.T) {
	p := mustParse(t, `[
		{"_tool":"a","z":1,"a":{"k":[1,2]},"m":"x","_id":"first","_title":"First call",
		 "_status":"in_progress","_toolCallId":"tc-9","_meta":{"ignored":true},"_outputPath":"†state.out[007]"},
		{"_tool":"b","dup":1,"dup":2,"_id":42,"_status":null,"_title":null}
	]`)
	c := p.Calls[0]
	if c.ID != "first" || c.Index != 0 || c.Title != "First call" || c.Status != StatusInProgress || c.ToolCallID != "tc-9" {
		t.Errorf("meta = %+v", c)
	}
	if c.Output != "†state.out[7]" {
		t.Errorf("output = %q, want canonical index", c.Output)
	}
	var names []string
	for _, a := range c.Args {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "z,a,m" {
		t.Errorf("argument order = %s, want z,a,m", got)
	}
	if string(c.Args[1].Value) != `{"k":[1,2]}` {
		t.Errorf("raw value = %s", c.Args[1].Value)
	}
	if c.Label() != "First call" {
		t.Errorf("label = %q", c.Label())
	}
	d := p.Calls[1]
	if d.ID != "42" || d.Status != StatusPending || d.Label() != "b" {
		t.Errorf("second call = %+v", d)
	}
	if len(d.Args) != 1 || string(d.Args[0].Value) != "2" {
		t.Errorf("duplicate key: args = %+v, want last value", d.Args)
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+5) + strings.Repeat("]", MaxDepth+5)
	abyss := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	tests := []struct {
		name, raw, want string
	}{
		{"empty", ``, "empty input"},
		{"number", `3`, "got a number"},
		{"string", `"plan"`, "got a string"},
		{"not json", `[{"_tool":}]`, "not valid JSON"},
		{"object without calls", `{"steps":[]}`, `no "calls" array`},
		{"calls not array", `{"calls":{"a":1}}`, `"calls" is an object, not an array`},
		{"generic graph", `{"type":"_graph","nodes":[]}`, "generic graph"},
		{"call is string", `[{"_tool":"a"},{"_tool":"b"},{"_tool":"c"},"fetch"]`, "call 3 is a string, not an object"},
		{"call is null", `[null]`, "call 0 is null, not an object"},
		{"call is array", `[[1]]`, "call 0 is an array, not an object"},
		{"duplicate ids", `[{"_tool":"a","_id":"x"},{"_tool":"b","_id":"x"}]`, `duplicate _id "x": calls 0 and 1`},
		{"default id collides", `[{"_tool":"a","_id":"1"},{"_tool":"b"}]`, "call 1 has no _id, so its position is its id"},
		{"id object", `[{"_tool":"a","_id":{}}]`, "_id is an object, not a string"},
		{"id empty", `[{"_tool":"a","_id":""}]`, "_id is empty"},
		{"bad status", `[{"_tool":"a","_status":"done"}]`, `_status "done" is not one of`},
		{"status number", `[{"_tool":"a","_status":1}]`, "_status is a number"},
		{"title number", `[{"_tool":"a","_title":1}]`, "_title is a number"},
		{"tool call id bool", `[{"_tool":"a","_toolCallId":true}]`, "_toolCallId is a boolean"},
		{"state array", `{"calls":[],"_state":[1]}`, `"_state" is an array, not an object`},
		{"instances object", `{"calls":[],"_instances":{}}`, `"_instances" is an object, not an array`},
		{"instance string", `{"calls":[],"_instances":[{},"x"]}`, "instance 1 is a string, not an object"},
		{"deep argument", `[{"_tool":"a","x":` + deep + `}]`, fmt.Sprintf("nested deeper than %d levels", MaxDepth)},
		{"deep argument with ref", `[{"_tool":"a","x":` + strings.Replace(deep, "]", `"†state.a"]`, 1) + `}]`, "nested deeper than"},
		{"abyss", `[{"_tool":"a","x":` + abyss + `}]`, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", p)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParsePath(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"†state", "†state", true},
		{"†state.a", "†state.a", true},
		{"†state.user_1.e-mail", "†state.user_1.e-mail", true},
		{"†state.list[0].name", "†state.list[0].name", true},
		{"†state.list[007]", "†state.list[7]", true},
		{"†state[2]", "†state[2]", true},
		{"†state.naïve", "†state.naïve", true},
		{"†state.", "", false},
		{"†state..a", "", false},
		{"†state.a b", "", false},
		{"†statement", "", false},
		{"†state.a[", "", false},
		{"†state.a[]", "", false},
		{"†state.a[-1]", "", false},
		{"†state.a[x]", "", false},
		{"†state.a[1234567890]", "", false},
		{"†state.a/b", "", false},
		{"state.a", "", false},
	}
	for _, tt := range tests {
		got, err := ParsePath(tt.in)
		if (err == nil) != tt.ok || string(got) != tt.want {
			t.Errorf("ParsePath(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestPathRelations(t *testing.T) {
	tests := []struct {
		p, q               Path
		contains, overlaps bool
	}{
		{"†state.a", "†state.a", true, true},
		{"†state.a", "†state.a.b", true, true},
		{"†state.a", "†state.a[0]", true, true},
		{"†state.a.b", "†state.a", false, true},
		{"†state.a", "†state.ab", false, false},
		{"†state.a.b", "†state.a.c", false, false},
		{"†state", "†state.x.y", true, true},
		{"†state.l[1]", "†state.l[10]", false, false},
	}
	for _, tt := range tests {
		if got := tt.p.Contains(tt.q); got != tt.contains {
			t.Errorf("%s.Contains(%s) = %v", tt.p, tt.q, got)
		}
		if got := tt.p.Overlaps(tt.q); got != tt.overlaps {
			t.Errorf("%s.Overlaps(%s) = %v", tt.p, tt.q, got)
		}
	}
}

// chainPlan is n calls, each reading the previous one's output.
func chainPlan(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			fmt.Fprintf(&b, `,{"_tool":"t","in":"†state.s%d","_outputPath":"†state.s%d"}`, i-1, i)
			continue
		}
		b.WriteString(`{"_tool":"t","_outputPath":"†state.s0"}`)
	}
	b.WriteString("]")
	return b.String()
}

func TestParseTenThousandCalls(t *testing.T) {
	p := mustParse(t, chainPlan(10000))
	if len(p.Calls) != 10000 || len(p.Graph.Edges) != 9999 || !p.Valid() {
		t.Fatalf("calls=%d edges=%d problems=%d", len(p.Calls), len(p.Graph.Edges), len(p.Problems))
	}
	d := Simulate(p)
	if len(d.Levels) != 10000 || len(d.CriticalPath) != 10000 {
		t.Fatalf("levels=%d critical=%d", len(d.Levels), len(d.CriticalPath))
	}
	if testing.Short() {
		return
	}
	g := Layout(p.Graph)
	if g.Engine != EngineLayered || len(g.Nodes) != 10000 {
		t.Fatalf("layout engine=%s nodes=%d", g.Engine, len(g.Nodes))
	}
}

func BenchmarkParse10000(b *testing.B) {
	raw := json.RawMessage(chainPlan(10000))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseLimits(t *testing.T) {
	// 700 calls each reading the whole state: ~245,000 edges.
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 700; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"_tool":"t","all":"†state","_outputPath":"†state.k%d"}`, i)
	}
	b.WriteString("]")
	if _, err := Parse(json.RawMessage(b.String())); err == nil || !strings.Contains(err.Error(), "data-flow edges") {
		t.Errorf("edge limit: %v", err)
	}
	// Many instances times many reads.
	inst := strings.TrimSuffix(strings.Repeat("{},", 3000), ",")
	calls := strings.TrimSuffix(strings.Repeat(`{"_tool":"t","a":"†state.x","b":"†state.y"},`, 400), ",")
	_, err := Parse(json.RawMessage(`{"_instances":[` + inst + `],"calls":[` + calls + `]}`))
	if err == nil || !strings.Contains(err.Error(), "too large to check") {
		t.Errorf("run work limit: %v", err)
	}
}

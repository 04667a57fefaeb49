package dag

import (
	"slices"
	"strings"
	"testing"
)

func TestProblems(t *testing.T) {
	type want struct {
		kind      ProblemKind
		calls     []string
		paths     []string
		instances []int
		message   string // a fragment
	}
	tests := []struct {
		name string
		plan string
		want []want
	}{
		{"valid plan", `[{"_tool":"a","_outputPath":"†state.x"},{"_tool":"b","in":"†state.x"}]`, nil},
		{"cycle with the cycle in order",
			`[{"_id":"a","_tool":"t","in":"†state.c","_outputPath":"†state.a"},
			  {"_id":"b","_tool":"t","in":"†state.a","_outputPath":"†state.b"},
			  {"_id":"c","_tool":"t","in":"†state.b","_outputPath":"†state.c"},
			  {"_id":"d","_tool":"t","in":"†state.c"}]`,
			[]want{{kind: ProblemCycle, calls: []string{"a", "b", "c"}, paths: []string{"†state.a", "†state.b", "†state.c"},
				message: `call 0 ("a") → call 1 ("b") → call 2 ("c") → call 0 ("a") form a cycle`}}},
		{"unresolved read",
			`[{"_tool":"t","in":"†state.nothing"}]`,
			[]want{{kind: ProblemUnresolved, calls: []string{"0"}, paths: []string{"†state.nothing"}, message: "no call writes it and the initial state lacks it"}}},
		{"initial state resolves reads, ancestors and descendants",
			`{"_state":{"user":{"name":"A"},"list":[1,2]},"calls":[{"_tool":"t","a":"†state.user","b":"†state.user.name","c":"†state.list[1]"}]}`,
			nil},
		{"initial state lacks a deeper path",
			`{"_state":{"user":{"name":"A"},"list":[1]},"calls":[{"_tool":"t","a":"†state.user.name.first","b":"†state.list[1]"}]}`,
			[]want{{kind: ProblemUnresolved, paths: []string{"†state.user.name.first"}}, {kind: ProblemUnresolved, paths: []string{"†state.list[1]"}}}},
		{"unresolved in some instances",
			`{"_state":{"common":1},"_instances":[{"user":"a"},{},{"user":"c"},{}],"calls":[{"_tool":"t","u":"†state.user","c":"†state.common"}]}`,
			[]want{{kind: ProblemUnresolved, calls: []string{"0"}, paths: []string{"†state.user"}, instances: []int{1, 3}, message: "initial state of instances 1, 3 lacks it"}}},
		{"unresolved in every instance",
			`{"_instances":[{},{}],"calls":[{"_tool":"t","u":"†state.user"}]}`,
			[]want{{kind: ProblemUnresolved, instances: []int{0, 1}, message: "every instance"}}},
		{"duplicate writer",
			`[{"_tool":"t","_outputPath":"†state.x"},{"_tool":"t","_outputPath":"†state.y"},{"_tool":"t","_outputPath":"†state.x"}]`,
			[]want{{kind: ProblemDuplicateWriter, calls: []string{"0", "2"}, paths: []string{"†state.x"}, message: "call 0, call 2 all write †state.x"}}},
		{"self read is reported once, not also as unresolved",
			`[{"_tool":"t","in":"†state.x.y","again":"†state.x.y","_outputPath":"†state.x"}]`,
			[]want{{kind: ProblemSelfRead, calls: []string{"0"}, paths: []string{"†state.x.y"}, message: "its own output"}}},
		{"missing tool",
			`[{"a":1},{"_tool":""},{"_tool":5,"_id":"n"}]`,
			[]want{
				{kind: ProblemMissingTool, calls: []string{"0"}, message: "call 0 has no _tool"},
				{kind: ProblemMissingTool, calls: []string{"1"}, message: "empty _tool"},
				{kind: ProblemMissingTool, calls: []string{"n"}, message: `call 2 ("n") has a _tool that is a number`},
			}},
		{"malformed paths",
			`[{"_tool":"t","_outputPath":"†state..x"},{"_tool":"t","_outputPath":7},{"_tool":"t","in":{"deep":["†stateful"]}}]`,
			[]want{
				{kind: ProblemMalformedPath, calls: []string{"0"}, paths: []string{"†state..x"}},
				{kind: ProblemMalformedPath, calls: []string{"1"}, message: "_outputPath is a number"},
				{kind: ProblemMalformedPath, calls: []string{"2"}, paths: []string{"†stateful"}, message: "at in.deep[0]"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, tt.plan)
			if p.Valid() != (len(tt.want) == 0) {
				t.Errorf("Valid() = %v with problems %+v", p.Valid(), p.Problems)
			}
			if len(p.Problems) != len(tt.want) {
				t.Fatalf("problems = %+v, want %d", p.Problems, len(tt.want))
			}
			for i, w := range tt.want {
				got := p.Problems[i]
				if got.Kind != w.kind {
					t.Errorf("problem %d kind = %s, want %s", i, got.Kind, w.kind)
				}
				if w.calls != nil && !slices.Equal(got.Calls, w.calls) {
					t.Errorf("problem %d calls = %q, want %q", i, got.Calls, w.calls)
				}
				if w.paths != nil && !slices.Equal(got.Paths, w.paths) {
					t.Errorf("problem %d paths = %q, want %q", i, got.Paths, w.paths)
				}
				if !slices.Equal(got.Instances, w.instances) {
					t.Errorf("problem %d instances = %v, want %v", i, got.Instances, w.instances)
				}
				if !strings.Contains(got.Message, w.message) {
					t.Errorf("problem %d message = %q, want it to contain %q", i, got.Message, w.message)
				}
			}
		})
	}
}

func TestCycleInsideTangle(t *testing.T) {
	// a⇄b and b→c→a: one component, one reported (shortest) cycle through a.
	p := mustParse(t, `[
		{"_id":"a","_tool":"t","x":"†state.b","y":"†state.c","_outputPath":"†state.a"},
		{"_id":"b","_tool":"t","x":"†state.a","_outputPath":"†state.b"},
		{"_id":"c","_tool":"t","x":"†state.b","_outputPath":"†state.c"}]`)
	var cycles []Problem
	for _, pr := range p.Problems {
		if pr.Kind == ProblemCycle {
			cycles = append(cycles, pr)
		}
	}
	if len(cycles) != 1 || !slices.Equal(cycles[0].Calls, []string{"a", "b"}) {
		t.Fatalf("cycles = %+v", cycles)
	}
	if !strings.Contains(cycles[0].Message, "3 calls are tangled") {
		t.Errorf("message = %q", cycles[0].Message)
	}
}

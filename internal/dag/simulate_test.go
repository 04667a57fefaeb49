package dag

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

func TestDryRun(t *testing.T) {
	tests := []struct {
		name     string
		plan     string
		order    []string
		levels   [][]string
		critical []string
		blocked  []string
	}{
		{"diamond plus an independent call",
			`[{"_id":"a","_tool":"t","_outputPath":"†state.a"},
			  {"_id":"e","_tool":"t"},
			  {"_id":"c","_tool":"t","x":"†state.a","_outputPath":"†state.c"},
			  {"_id":"b","_tool":"t","x":"†state.a","_outputPath":"†state.b"},
			  {"_id":"d","_tool":"t","x":"†state.b","y":"†state.c"}]`,
			[]string{"a", "e", "c", "b", "d"},
			[][]string{{"a", "e"}, {"c", "b"}, {"d"}},
			[]string{"a", "c", "d"}, // c comes before b in the plan
			nil},
		{"longest chain wins over earlier short ones",
			`[{"_id":"s","_tool":"t","_outputPath":"†state.s"},
			  {"_id":"x","_tool":"t","_outputPath":"†state.x"},
			  {"_id":"y","_tool":"t","a":"†state.x","_outputPath":"†state.y"},
			  {"_id":"z","_tool":"t","a":"†state.y"},
			  {"_id":"t2","_tool":"t","a":"†state.s"}]`,
			[]string{"s", "x", "y", "z", "t2"},
			[][]string{{"s", "x"}, {"y", "t2"}, {"z"}},
			[]string{"x", "y", "z"},
			nil},
		{"equal chains: the one ending earlier wins",
			`[{"_id":"p","_tool":"t","_outputPath":"†state.p"},
			  {"_id":"q","_tool":"t","_outputPath":"†state.q"},
			  {"_id":"q2","_tool":"t","a":"†state.q"},
			  {"_id":"p2","_tool":"t","a":"†state.p"}]`,
			[]string{"p", "q", "q2", "p2"},
			[][]string{{"p", "q"}, {"q2", "p2"}},
			[]string{"q", "q2"},
			nil},
		{"a cycle blocks itself and what follows; the rest still runs",
			`[{"_id":"ok","_tool":"t","_outputPath":"†state.ok"},
			  {"_id":"l1","_tool":"t","a":"†state.l2","_outputPath":"†state.l1"},
			  {"_id":"l2","_tool":"t","a":"†state.l1","b":"†state.ok","_outputPath":"†state.l2"},
			  {"_id":"after","_tool":"t","a":"†state.l2"},
			  {"_id":"fine","_tool":"t","a":"†state.ok"}]`,
			[]string{"ok", "fine"},
			[][]string{{"ok"}, {"fine"}},
			[]string{"ok", "fine"},
			[]string{"l1", "l2", "after"}},
		{"empty plan", `[]`, nil, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Simulate(mustParse(t, tt.plan))
			if !slices.Equal(d.Order, tt.order) {
				t.Errorf("order = %q, want %q", d.Order, tt.order)
			}
			if fmt.Sprint(d.Levels) != fmt.Sprint(tt.levels) {
				t.Errorf("levels = %q, want %q", d.Levels, tt.levels)
			}
			if !slices.Equal(d.CriticalPath, tt.critical) {
				t.Errorf("critical path = %q, want %q", d.CriticalPath, tt.critical)
			}
			if !slices.Equal(d.Blocked, tt.blocked) {
				t.Errorf("blocked = %q, want %q", d.Blocked, tt.blocked)
			}
		})
	}
}

func TestDryRunCalls(t *testing.T) {
	p := mustParse(t, `{"_state":{"user":"Alice"},"calls":[
		{"_id":"fetch","_tool":"t","name":"†state.user","_outputPath":"†state.profile"},
		{"_id":"sum","_tool":"t","p":"†state.profile.bio","u":"†state.user","m":"†state.missing","_outputPath":"†state.summary"}]}`)
	d := Simulate(p)
	sum := d.Calls[1]
	if sum.ID != "sum" || sum.Level != 1 || sum.Writes != "†state.summary" || len(sum.Reads) != 3 {
		t.Fatalf("call run = %+v", sum)
	}
	if in := sum.Reads[0]; !slices.Equal(in.From, []string{"fetch"}) || in.Initial || in.At != "p" {
		t.Errorf("read 0 = %+v", in)
	}
	if in := sum.Reads[1]; in.From != nil || !in.Initial || string(in.Value) != `"Alice"` {
		t.Errorf("read 1 = %+v", in)
	}
	if in := sum.Reads[2]; in.From != nil || in.Initial {
		t.Errorf("read 2 = %+v", in)
	}
	if len(d.Runs) != 1 || d.Runs[0].Instance != -1 {
		t.Fatalf("runs = %+v", d.Runs)
	}
	wantKeys := []Path{"†state.profile", "†state.summary", "†state.user"}
	if !slices.Equal(d.Runs[0].FinalKeys, wantKeys) {
		t.Errorf("final keys = %q, want %q", d.Runs[0].FinalKeys, wantKeys)
	}
	if want := []UnresolvedRead{{Call: "sum", Path: "†state.missing"}}; !slices.Equal(d.Runs[0].Unresolved, want) {
		t.Errorf("unresolved = %+v", d.Runs[0].Unresolved)
	}
}

func TestDryRunInstances(t *testing.T) {
	p := mustParse(t, `{"_state":{"lang":"en"},"_instances":[{"user":"a"},{"other":1}],"calls":[
		{"_id":"f","_tool":"t","u":"†state.user","l":"†state.lang","_outputPath":"†state.out"}]}`)
	d := Simulate(p)
	if len(d.Runs) != 2 {
		t.Fatalf("runs = %+v", d.Runs)
	}
	if r := d.Runs[0]; r.Instance != 0 || len(r.Unresolved) != 0 || !slices.Equal(r.FinalKeys, []Path{"†state.lang", "†state.out", "†state.user"}) {
		t.Errorf("run 0 = %+v", r)
	}
	if r := d.Runs[1]; r.Instance != 1 || !slices.Equal(r.Unresolved, []UnresolvedRead{{"f", "†state.user"}}) ||
		!slices.Equal(r.FinalKeys, []Path{"†state.lang", "†state.other", "†state.out"}) {
		t.Errorf("run 1 = %+v", r)
	}
	// With instances there is no single initial value to show.
	if in := d.Calls[0].Reads[0]; !in.Initial || in.Value != nil {
		t.Errorf("read = %+v", in)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Fatal(err)
	}
}

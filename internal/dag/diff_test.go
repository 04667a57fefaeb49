package dag

import (
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	before := mustParse(t, `[
		{"_id":"a","_tool":"fetch","q":{"x":1,"y":[1,2]},"_outputPath":"†state.a"},
		{"_id":"b","_tool":"sum","p":"†state.a"},
		{"_id":"c","_tool":"mail","to":"x"},
		{"_id":"d","_tool":"log","_status":"pending"}]`)
	after := mustParse(t, `[
		{"_id":"new","_tool":"extra"},
		{"_id":"d","_tool":"log","_status":"completed","_title":"Log it"},
		{"_id":"a","_tool":"fetch","q":{ "y":[1,2], "x":1 },"_outputPath":"†state.a"},
		{"_id":"b","_tool":"summarize","p":"†state.a","more":true,"_outputPath":"†state.s"}]`)
	got := Diff(before, after)
	want := PlanDiff{
		Added:   []string{"new"},
		Removed: []string{"c"},
		Changed: []CallChange{
			{ID: "d", Fields: []string{"title", "status"}},
			{ID: "b", Fields: []string{"tool", "arguments", "output"}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff = %+v\nwant %+v", got, want)
	}
	if !Diff(before, before).Empty() || Diff(nil, before).Empty() || len(Diff(before, nil).Removed) != 4 {
		t.Error("identity and nil cases")
	}
}

package dag

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// PlanDiff is what changed between two versions of a plan, matched by call
// id; ids follow the later version's order, removed ones the earlier's.
type PlanDiff struct {
	Added   []string     `json:"added,omitempty"`
	Removed []string     `json:"removed,omitempty"`
	Changed []CallChange `json:"changed,omitempty"`
}

// CallChange names the fields of one call that differ.
type CallChange struct {
	ID string `json:"id"`
	// Fields are among "tool", "title", "status", "toolCallId",
	// "arguments" and "output".
	Fields []string `json:"fields"`
}

// Empty reports whether the versions hold the same calls.
func (d PlanDiff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// Diff compares two versions of a plan. Either may be nil (no calls). A
// call that only moved is not a change: ids, not positions, identify calls.
func Diff(before, after *Plan) PlanDiff {
	var d PlanDiff
	old := map[string]*Call{}
	if before != nil {
		for i := range before.Calls {
			old[before.Calls[i].ID] = &before.Calls[i]
		}
	}
	kept := map[string]bool{}
	if after != nil {
		for i := range after.Calls {
			c := &after.Calls[i]
			prev, ok := old[c.ID]
			if !ok {
				d.Added = append(d.Added, c.ID)
				continue
			}
			kept[c.ID] = true
			if fields := changedFields(prev, c); len(fields) > 0 {
				d.Changed = append(d.Changed, CallChange{ID: c.ID, Fields: fields})
			}
		}
	}
	if before != nil {
		for _, c := range before.Calls {
			if !kept[c.ID] {
				d.Removed = append(d.Removed, c.ID)
			}
		}
	}
	return d
}

func changedFields(a, b *Call) []string {
	var out []string
	if a.Tool != b.Tool {
		out = append(out, "tool")
	}
	if a.Title != b.Title {
		out = append(out, "title")
	}
	if a.Status != b.Status {
		out = append(out, "status")
	}
	if a.ToolCallID != b.ToolCallID {
		out = append(out, "toolCallId")
	}
	if !sameArgs(a.Args, b.Args) {
		out = append(out, "arguments")
	}
	if a.Output != b.Output {
		out = append(out, "output")
	}
	return out
}

// sameArgs compares arguments by name and JSON value: reordered arguments,
// reordered object keys or different spacing are not changes.
func sameArgs(a, b []Arg) bool {
	if len(a) != len(b) {
		return false
	}
	bv := make(map[string]json.RawMessage, len(b))
	for _, x := range b {
		bv[x.Name] = x.Value
	}
	for _, x := range a {
		y, ok := bv[x.Name]
		if !ok {
			return false
		}
		if bytes.Equal(x.Value, y) {
			continue
		}
		var xv, yv any
		if json.Unmarshal(x.Value, &xv) != nil || json.Unmarshal(y, &yv) != nil || !reflect.DeepEqual(xv, yv) {
			return false
		}
	}
	return true
}

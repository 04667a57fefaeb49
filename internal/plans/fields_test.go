package plans_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
)

// TestEntryFields: a plans.Entry that differs in any one field is not Equal, survives its JSON
// (what stores keep), and, unless planstest.EntryHidden says no page shows the field, is not
// SameShown and shows in the history's line and structured diffs. A field added to Entry and not
// to Equal would be lost from history stored as deltas, with every other test still passing.
func TestEntryFields(t *testing.T) {
	base := planstest.FullEntry()
	variants := planstest.Vary(t, base)
	for name := range planstest.EntryHidden {
		if _, ok := variants[name]; !ok {
			t.Errorf("planstest.EntryHidden lists %s, which plans.Entry does not have", name)
		}
	}
	for name, v := range variants {
		if base.Equal(v) || v.Equal(base) {
			t.Errorf("Entry.Equal does not compare %s: history would lose a change of it alone", name)
		}
		checkJSON(t, "Entry."+name, base, v)
		_, hidden := planstest.EntryHidden[name]
		if v.SameShown(base) != hidden {
			t.Errorf("Entry.SameShown of entries that differ in %s is %v; planstest.EntryHidden says hidden=%v", name, v.SameShown(base), hidden)
		}
		if hidden {
			continue
		}
		a, b := plans.Plan{Kind: plans.KindItems, Entries: []plans.Entry{base}}, plans.Plan{Kind: plans.KindItems, Entries: []plans.Entry{v}}
		if slices.Equal(a.Lines(), b.Lines()) {
			t.Errorf("Plan.Lines does not show Entry.%s: the line diff misses a change of it", name)
		}
		if plans.EntriesDiff(a.Entries, b.Entries).Empty() {
			t.Errorf("EntriesDiff does not compare Entry.%s: the history page misses a change of it", name)
		}
	}
}

// TestPlanFields: every field of plans.Plan is listed in planstest.PlanFields (a new field is a
// decision about where it shows), survives its JSON, and a field said to be diffed shows in
// plans.StructDiff on at least one kind of plan.
func TestPlanFields(t *testing.T) {
	at := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	bases := []plans.Plan{
		{Kind: plans.KindItems, Type: "items", Entries: []plans.Entry{{Content: "a", Status: plans.StatusPending}}},
		{Kind: plans.KindMarkdown, Type: "markdown", Markdown: "# Plan\n\nRead."},
		{Kind: plans.KindFile, Type: "file", URI: "file:///plan.md"},
		{Kind: plans.KindCustom, Type: "_x", Raw: json.RawMessage(`{"n":1}`)},
	}
	diffed := map[string]bool{}
	for _, base := range bases {
		base.SessionID, base.ID, base.Revision, base.Created, base.Updated = "s", "p", 1, at, at
		variants := planstest.Vary(t, base)
		for name, v := range variants {
			if _, ok := planstest.PlanFields[name]; !ok {
				t.Fatalf("plans.Plan.%s is not in planstest.PlanFields: say whether the history's diff shows it, and where it shows", name)
			}
			checkJSON(t, "Plan."+name, base, v)
			if !plans.StructDiff(base, v).Empty() {
				diffed[name] = true
			}
		}
		for name := range planstest.PlanFields {
			if _, ok := variants[name]; !ok {
				t.Fatalf("planstest.PlanFields lists %s, which plans.Plan does not have", name)
			}
		}
	}
	for name, f := range planstest.PlanFields {
		if f.Diffed && !diffed[name] {
			t.Errorf("planstest.PlanFields says a change of Plan.%s alone shows in StructDiff; it does not on any kind of plan", name)
		}
	}
}

// checkJSON: v, which differs from base in one field, encodes differently and decodes back to
// itself, so a store keeps the field.
func checkJSON[T any](t *testing.T, what string, base, v T) {
	t.Helper()
	a, _ := json.Marshal(base)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back T
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if string(a) == string(b) || !reflect.DeepEqual(back, v) {
		t.Errorf("%s is not kept by its JSON (%s): stores would lose it", what, b)
	}
}

package planstest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// Vary returns, for every field of base (a struct), a copy of base that differs from it in that
// field only, by field name. The guard tests of every place that must know all the fields of
// plans.Entry and plans.Plan (equality, stored history, diffs, pages) run on these copies, so a
// field added to the struct is checked in each of them without anyone listing it there.
func Vary[T any](t testing.TB, base T) map[string]T {
	t.Helper()
	out := map[string]T{}
	st := reflect.TypeFor[T]()
	for i := range st.NumField() {
		c := base
		f := reflect.ValueOf(&c).Elem().Field(i)
		if !vary(f) {
			t.Fatalf("planstest.Vary cannot change field %s (%s) of %s: teach it that type", st.Field(i).Name, f.Type(), st)
		}
		out[st.Field(i).Name] = c
	}
	return out
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// vary sets f to a value other than its own, valid JSON where f holds JSON; false for a type it
// does not know.
func vary(f reflect.Value) bool {
	switch {
	case f.Type() == timeType:
		f.Set(reflect.ValueOf(f.Interface().(time.Time).Add(time.Second)))
	case f.Type() == rawType:
		v := json.RawMessage(`{"varied":true}`)
		if len(f.Bytes()) > 0 {
			v = json.RawMessage(`[` + string(f.Bytes()) + `]`)
		}
		f.Set(reflect.ValueOf(v))
	case f.Kind() == reflect.String:
		f.SetString(f.String() + "-varied")
	case f.Kind() == reflect.Bool:
		f.SetBool(!f.Bool())
	case f.CanInt():
		f.SetInt(f.Int() + 1)
	case f.CanUint():
		f.SetUint(f.Uint() + 1)
	case f.Kind() == reflect.Slice:
		e := reflect.New(f.Type().Elem()).Elem()
		if e.Kind() == reflect.String {
			e.SetString("varied")
		}
		f.Set(reflect.Append(reflect.AppendSlice(reflect.MakeSlice(f.Type(), 0, f.Len()+1), f), e))
	case f.Kind() == reflect.Pointer && f.IsNil():
		f.Set(reflect.New(f.Type().Elem()))
	case f.Kind() == reflect.Pointer:
		f.SetZero()
	default:
		return false
	}
	return true
}

// FullEntry is an entry with every field set, the base the field guard tests vary.
func FullEntry() plans.Entry {
	return plans.Entry{Content: "Read the code", Priority: "high", Status: plans.StatusPending, Meta: json.RawMessage(`{"k":1}`)}
}

// EntryHidden are the fields of plans.Entry that no page shows, and why. Every other field is
// shown with the entry, in the history's diffs, and carried by the plan editor.
var EntryHidden = map[string]string{
	"Meta": "_meta is the agent's own data, kept and stored but not shown",
}

// PlanFields says, for every field of plans.Plan, whether the history's structured diff
// (plans.StructDiff) shows a change of it alone, and where the field shows or why it does not.
// A field added to plans.Plan fails TestPlanFields until it is listed here.
var PlanFields = map[string]struct {
	Diffed bool
	Why    string
}{
	"SessionID": {false, "the plan's address: a change is another plan"},
	"ID":        {false, "the plan's address and title: a change is another plan"},
	"Kind":      {true, "how the plan is drawn; the diff names a kind change"},
	"Type":      {false, "the wire type as sent; Kind is what is shown"},
	"Revision":  {false, "the history page lists revisions by it"},
	"Created":   {false, "shown as a time, not a change"},
	"Updated":   {false, "shown as a time, not a change"},
	"Removed":   {true, "the diff says the plan was removed"},
	"Agent":     {false, "shown with the plan; an agent does not change within a plan's history"},
	"Entries":   {true, "the checklist; the diff compares entries"},
	"Markdown":  {true, "the markdown body; the diff compares blocks"},
	"URI":       {true, "a file plan's address; the diff names it"},
	"Raw":       {true, "custom and tool-call plans' body; the diff compares its lines"},
	"Meta":      {false, "the agent's _meta; a tool-call plan's calls in it are drawn as the graph"},
	"Warnings":  {false, "shown above the plan; not a change the agent made"},
	"Replayed":  {false, "marks a plan replayed from history; not a change the agent made"},
	"Seq":       {false, "the store's change number; pages catch up by it"},
}

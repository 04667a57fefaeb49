package plans

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// applyStruct replays a structured diff on the units a (entries as text, status, priority) and
// returns what it produces, which must be b. Skipped runs copy a's units; every other change
// is checked against a where it claims to come from.
func applyStruct(a []unit, d StructuredDiff) ([]unit, error) {
	var out []unit
	usedA := make([]bool, len(a))
	use := func(from int, want string) error {
		if from < 1 || from > len(a) {
			return fmt.Errorf("position %d outside a (%d units)", from, len(a))
		}
		if usedA[from-1] {
			return fmt.Errorf("unit %d of a used twice", from)
		}
		usedA[from-1] = true
		if want != "\x00" && a[from-1].text != want {
			return fmt.Errorf("unit %d of a is %q, the diff says %q", from, a[from-1].text, want)
		}
		return nil
	}
	for _, c := range d.Changes {
		if c.To != 0 && c.To != len(out)+1 && c.Op != ChangeRemoved {
			return nil, fmt.Errorf("change %+v out of order: %d units produced", c, len(out))
		}
		var oldText, newText strings.Builder
		for _, w := range c.Words {
			if w.Op != Added {
				oldText.WriteString(w.Text)
			}
			if w.Op != Removed {
				newText.WriteString(w.Text)
			}
		}
		switch c.Op {
		case ChangeSkipped:
			for k := range c.Count {
				if err := use(c.From+k, "\x00"); err != nil {
					return nil, err
				}
				out = append(out, a[c.From-1+k])
			}
		case ChangeRemoved:
			if err := use(c.From, c.Text); err != nil {
				return nil, err
			}
		case ChangeAdded:
			out = append(out, unit{text: c.Text, kind: c.Kind, status: c.Status, priority: c.Priority})
		case ChangeSame, ChangeEdited, ChangeMoved:
			old, text := c.Text, c.Text
			if c.TextEdited() {
				old, text = oldText.String(), newText.String()
			}
			if err := use(c.From, old); err != nil {
				return nil, err
			}
			if a[c.From-1].status != c.OldStatus || a[c.From-1].priority != c.OldPriority {
				return nil, fmt.Errorf("unit %d of a: old status/priority %q/%q, the diff says %q/%q", c.From,
					a[c.From-1].status, a[c.From-1].priority, c.OldStatus, c.OldPriority)
			}
			out = append(out, unit{text: text, kind: c.Kind, status: c.Status, priority: c.Priority})
		default:
			return nil, fmt.Errorf("unknown op %q", c.Op)
		}
	}
	for i, u := range usedA {
		if !u {
			return nil, fmt.Errorf("unit %d of a (%q) is in no change", i+1, a[i].text)
		}
	}
	return out, nil
}

// complete reports whether nothing of the diff was cut, so it must reconstruct b exactly.
func complete(d StructuredDiff) bool {
	if d.Hidden > 0 {
		return false
	}
	for _, c := range d.Changes {
		if c.TextCut || c.WordsHidden > 0 {
			return false
		}
	}
	return true
}

func entryUnits(es []Entry) []unit {
	us := make([]unit, len(es))
	for i, e := range es {
		us[i] = unit{text: e.Content, status: e.Status, priority: e.Priority}
	}
	return us
}

// checkStruct asserts what every diff of a to b must satisfy: replayed on a it gives b (when
// nothing was cut), its counts match its changes, and it is bounded.
func checkStruct(t *testing.T, a, b []unit, d StructuredDiff) {
	t.Helper()
	checkBounds(t, d)
	if !complete(d) {
		return
	}
	got, err := applyStruct(a, d)
	if err != nil {
		t.Fatalf("diff is not a script from a: %v\n%+v", err, d.Changes)
	}
	norm := func(us []unit) []string {
		out := make([]string, len(us))
		for i, u := range us {
			out[i] = u.kind + "|" + u.text + "|" + u.status + "|" + u.priority
		}
		return out
	}
	if g, w := norm(got), norm(b); !slices.Equal(g, w) {
		t.Fatalf("diff applied gives\n%q\nwant\n%q", g, w)
	}
	st := d.Stats
	if st.Same+st.Edited+st.Moved+st.Removed != len(a) || st.Same+st.Edited+st.Moved+st.Added != len(b) {
		t.Fatalf("stats %+v do not add up to %d and %d units", st, len(a), len(b))
	}
}

func checkBounds(t *testing.T, d StructuredDiff) {
	t.Helper()
	changes := 0
	for _, c := range d.Changes {
		if c.Op != ChangeSame && c.Op != ChangeSkipped {
			changes++
		}
		if len(c.Text) > maxChangeText || len(c.Words) > maxWordChanges {
			t.Fatalf("change %d/%d not bounded: %d bytes, %d word runs", c.From, c.To, len(c.Text), len(c.Words))
		}
	}
	if changes > MaxChanges || len(d.Changes) > MaxChanges*(2*contextUnits+2)+contextUnits+1 {
		t.Fatalf("%d changes in %d items: not bounded", changes, len(d.Changes))
	}
}

// ops is a diff's changes as short strings, e.g. "moved 1→4".
func ops(d StructuredDiff) []string {
	var out []string
	for _, c := range d.Changes {
		s := fmt.Sprintf("%s %d→%d", c.Op, c.From, c.To)
		if c.Op == ChangeSkipped {
			s = fmt.Sprintf("skipped %d", c.Count)
		}
		if c.StatusChanged() {
			s += " status " + c.OldStatus + ">" + c.Status
		}
		if c.PriorityChanged() {
			s += " priority " + c.OldPriority + ">" + c.Priority
		}
		for _, w := range c.Words {
			if w.Op != Same {
				s += fmt.Sprintf(" %c%q", w.Op, w.Text)
			}
		}
		out = append(out, s)
	}
	return out
}

func es(specs ...string) []Entry {
	out := make([]Entry, len(specs))
	for i, s := range specs {
		content, status, _ := strings.Cut(s, "|")
		if status == "" {
			status = StatusPending
		}
		st, prio, _ := strings.Cut(status, "|")
		if prio == "" {
			prio = "medium"
		}
		out[i] = Entry{Content: content, Status: st, Priority: prio}
	}
	return out
}

func TestEntriesDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b []Entry
		want []string
	}{
		{"identical plans collapse to one run", es("Read", "Write", "Test", "Ship"), es("Read", "Write", "Test", "Ship"),
			[]string{"skipped 4"}},
		{"an entry added at the end", es("Read", "Write"), es("Read", "Write", "Ship"),
			[]string{"same 1→1", "same 2→2", "added 0→3"}},
		{"an entry removed in the middle", es("Read", "Write", "Test"), es("Read", "Test"),
			[]string{"same 1→1", "removed 2→0", "same 3→2"}},
		{"a status change", es("Read", "Write"), es("Read|completed", "Write|in_progress"),
			[]string{"edited 1→1 status pending>completed", "edited 2→2 status pending>in_progress"}},
		{"a priority change", es("Read|pending|low"), es("Read|pending|high"),
			[]string{"edited 1→1 priority low>high"}},
		{"a word edited", es("Write unit tests for the parser"), es("Write fuzz tests for the parser"),
			[]string{`edited 1→1 -"unit" +"fuzz"`}},
		{"words added and the status changed", es("Ship it"), es("Ship it to staging|completed"),
			[]string{`edited 1→1 status pending>completed +" to staging"`}},
		{"an entry moved to the end", es("A first", "B second", "C third", "D fourth"), es("B second", "C third", "D fourth", "A first"),
			[]string{"same 2→1", "same 3→2", "same 4→3", "moved 1→4"}},
		{"an entry moved to the top is one move, not three", es("A first", "B second", "C third", "D fourth"), es("D fourth", "A first", "B second", "C third"),
			[]string{"moved 4→1", "same 1→2", "same 2→3", "same 3→4"}},
		{"a move among edits: the edited entries stay in place", es("Read the router setup", "Add a token bucket limiter", "Write table tests", "Update the changelog", "Deploy"),
			es("Update the changelog", "Read the router setup", "Add a sliding window limiter", "Write table tests|completed", "Benchmark it"),
			[]string{"moved 4→1", "same 1→2", `edited 2→3 -"token bucket" +"sliding window"`, "edited 3→4 status pending>completed", "removed 5→0", "added 0→5"}},
		{"an entry replaced by an unrelated one", es("Read the code", "Deploy"), es("Read the code", "Celebrate"),
			[]string{"same 1→1", "removed 2→0", "added 0→2"}},
		{"an entry moved and edited", es("Refactor the store layer", "Write docs", "Run benchmarks", "Release"),
			es("Write docs", "Run benchmarks", "Release", "Refactor the SQLite store layer"),
			[]string{"same 2→1", "same 3→2", "same 4→3", `moved 1→4 +"SQLite "`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := EntriesDiff(tt.a, tt.b)
			checkStruct(t, entryUnits(tt.a), entryUnits(tt.b), d)
			if len(tt.want) > 0 && !slices.Equal(ops(d), tt.want) {
				t.Errorf("changes\n%q\nwant\n%q", ops(d), tt.want)
			}
		})
	}
}

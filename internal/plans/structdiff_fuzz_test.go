package plans

import (
	"strings"
	"testing"
)

// fuzzEntries reads a checklist from fuzz input: one entry a line, its first byte choosing the
// status and priority, so moves, edits and status changes all come up.
func fuzzEntries(s string) []Entry {
	statuses := []string{StatusPending, StatusInProgress, StatusCompleted, StatusCancelled}
	prios := []string{"high", "medium", "low"}
	var out []Entry
	for l := range strings.SplitSeq(s, "\n") {
		if l == "" {
			continue
		}
		out = append(out, Entry{Content: l[1:], Status: statuses[int(l[0])%4], Priority: prios[int(l[0])/4%3]})
	}
	return out
}

// FuzzStructDiff asserts, for any two inputs read as checklists, markdown and text: no panic;
// replaying the diff's kept, edited, moved and added units on the first rebuilds the second
// (when nothing was cut); every unit of the first is accounted for once; the output is bounded;
// a text compared with itself has no changes; and a word diff rebuilds both texts.
func FuzzStructDiff(f *testing.F) {
	f.Add("aWrite tests\nbShip it\ncRead the code", "cRead the code\naWrite fuzz tests\ndShip it")
	f.Add("# Plan\n\n- [ ] one\n- [x] two\n\n```\ncode\n```\n", "# Plan v2\n\n- [x] one\n\n> two\n\n| a | b |\n|--|--|\n| 1 | 2 |\n")
	f.Add("", "a b c")
	f.Add("x\nx\nx\ny", "y\nx\nx")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 1<<16 || len(b) > 1<<16 {
			return
		}
		ea, eb := fuzzEntries(a), fuzzEntries(b)
		checkStruct(t, entryUnits(ea), entryUnits(eb), EntriesDiff(ea, eb))
		if d := EntriesDiff(ea, ea); !d.Empty() {
			t.Fatalf("a checklist differs from itself: %q", ops(d))
		}

		checkStruct(t, blockUnits(MarkdownBlocks(a)), blockUnits(MarkdownBlocks(b)), MarkdownDiff(a, b))
		if d := MarkdownDiff(a, a); !d.Empty() {
			t.Fatalf("a markdown text differs from itself: %q", ops(d))
		}

		la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
		lu := func(ls []string) []unit {
			us := make([]unit, len(ls))
			for i, l := range ls {
				us[i] = unit{text: l, kind: "line"}
			}
			return us
		}
		d := LinesDiff(la, lb)
		checkStruct(t, lu(la), lu(lb), d)
		for _, c := range d.Changes {
			if c.Op == ChangeMoved {
				t.Fatal("a line diff moved a line")
			}
		}

		runs, hidden := WordDiff(a, b)
		var ra, rb strings.Builder
		for _, r := range runs {
			if r.Op != Added {
				ra.WriteString(r.Text)
			}
			if r.Op != Removed {
				rb.WriteString(r.Text)
			}
		}
		if hidden == 0 && (ra.String() != a || rb.String() != b) {
			t.Fatalf("WordDiff(%q, %q) = %+v does not rebuild both", a, b, runs)
		}
	})
}

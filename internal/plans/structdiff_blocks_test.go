package plans

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestMarkdownBlocks(t *testing.T) {
	src := "# Release\n\nShip **it**\nsoon.\n\n- [ ] write notes\n- [x] tag\n  - nested item\n\n> quoted\n\n```go\nfmt.Println(1)\n```\n\n| a | b |\n|---|---|\n| 1 | `2` |\n\n---\n"
	var got []string
	for _, b := range MarkdownBlocks(src) {
		got = append(got, fmt.Sprintf("%s/%d/%s:%s", b.Kind, b.Level, b.Status, b.Text))
	}
	want := []string{"heading/1/:Release", "paragraph/0/:Ship **it**\nsoon.", "task/1/open:write notes", "task/1/done:tag",
		"item/2/:nested item", "quote/0/:quoted", "code/0/:fmt.Println(1)", "row/0/:a | b", "row/0/:1 | 2", "rule/0/:---"}
	if !slices.Equal(got, want) {
		t.Errorf("blocks\n%q\nwant\n%q", got, want)
	}
}

// Each block knows the source line it starts on, and every source line maps to the block it
// is part of: a fence, a table's separator and a paragraph's second line included.
func TestBlockAtLine(t *testing.T) {
	src := "# Release\n\nShip **it**\nsoon.\n\n- [ ] write notes\n- [x] tag\n  - nested item\n\n> quoted\n\n```go\nfmt.Println(1)\n```\n\n| a | b |\n|---|---|\n| 1 | `2` |\n\n---\n"
	bs := MarkdownBlocks(src)
	var starts []int
	for _, b := range bs {
		starts = append(starts, b.Line)
	}
	if want := []int{1, 3, 6, 7, 8, 10, 12, 16, 18, 20}; !slices.Equal(starts, want) {
		t.Fatalf("blocks start on lines %v, want %v", starts, want)
	}
	for line, want := range map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 6: 3, 8: 5, 12: 7, 13: 7, 14: 7, 17: 8, 18: 9, 20: 10} {
		if got := BlockAtLine(bs, line); got != want {
			t.Errorf("line %d is in block %d, want %d", line, got, want)
		}
	}
	if BlockAtLine(MarkdownBlocks("\n\n# Late"), 1) != 0 {
		t.Error("a blank line before the first block has a block")
	}
}

func TestMarkdownDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []string
	}{
		{"a heading edited", "# Plan\n\nbody\n", "# Release Plan\n\nbody\n", []string{`edited 1→1 +"Release "`, "same 2→2"}},
		{"a task ticked", "- [ ] write notes\n- [ ] tag\n", "- [x] write notes\n- [ ] tag\n",
			[]string{"edited 1→1 status open>done", "same 2→2"}},
		{"a list item added", "- one\n- two\n", "- one\n- two\n- three\n", []string{"same 1→1", "same 2→2", "added 0→3"}},
		{"a code block edited", "```\nmake test\n```\n", "```\nmake test-all\n```\n", []string{`edited 1→1 +"-all"`}},
		{"a paragraph moved", "# A\n\nalpha text\n\n# B\n\nbeta\n\n# C\n", "# A\n\n# B\n\nbeta\n\n# C\n\nalpha text\n",
			[]string{"same 1→1", "same 3→2", "same 4→3", "same 5→4", "moved 2→5"}},
		{"a heading is not the same block as a paragraph with its words", "# Deploy\n", "Deploy\n",
			[]string{"removed 1→0", "added 0→1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := MarkdownDiff(tt.a, tt.b)
			if d.Mode != ModeBlocks {
				t.Fatalf("mode %q", d.Mode)
			}
			checkStruct(t, blockUnits(MarkdownBlocks(tt.a)), blockUnits(MarkdownBlocks(tt.b)), d)
			if !slices.Equal(ops(d), tt.want) {
				t.Errorf("changes\n%q\nwant\n%q", ops(d), tt.want)
			}
		})
	}
}

func TestStructDiffKinds(t *testing.T) {
	items := Plan{Kind: KindItems, Entries: es("Read")}
	md := Plan{Kind: KindMarkdown, Markdown: "# Read\n"}
	dagA := Plan{Kind: KindDAG, Raw: json.RawMessage(`{"calls":[{"id":"a","tool":"read"}]}`)}
	dagB := Plan{Kind: KindDAG, Raw: json.RawMessage(`{"calls":[{"id":"a","tool":"write"}]}`)}
	tests := []struct {
		name   string
		a, b   Plan
		mode   DiffMode
		fields []string
		empty  bool
	}{
		{"checklists", items, Plan{Kind: KindItems, Entries: es("Read|completed")}, ModeEntries, nil, false},
		{"markdown", md, md, ModeBlocks, nil, true},
		{"the kind changed", items, md, ModeLines, []string{"kind:items>markdown"}, false},
		{"the plan removed", items, Plan{Kind: KindItems, Removed: true}, ModeLines, []string{"plan:present>removed"}, false},
		{"a file plan moved", Plan{Kind: KindFile, URI: "file:///a.md"}, Plan{Kind: KindFile, URI: "file:///b.md"}, ModeLines,
			[]string{"file:file:///a.md>file:///b.md"}, false},
		{"tool-call plans by formatted JSON line", dagA, dagB, ModeLines, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := StructDiff(tt.a, tt.b)
			var fields []string
			for _, f := range d.Fields {
				fields = append(fields, f.Name+":"+f.From+">"+f.To)
			}
			if d.Mode != tt.mode || !slices.Equal(fields, tt.fields) || d.Empty() != tt.empty {
				t.Errorf("mode %q fields %q empty %v; want %q %q %v (%q)", d.Mode, fields, d.Empty(), tt.mode, tt.fields, tt.empty, ops(d))
			}
		})
	}
	// A plan-level value is bounded like any text shown.
	long := Plan{Kind: KindFile, URI: "file:///" + strings.Repeat("é", 10_000)}
	if d := StructDiff(Plan{Kind: KindFile, URI: "file:///a"}, long); len(d.Fields) != 1 || len(d.Fields[0].To) > maxChangeText {
		t.Errorf("a long address is shown whole: %d bytes", len(d.Fields[0].To))
	}
	// The JSON line that changed is edited word by word, not removed and added.
	d := StructDiff(dagA, dagB)
	if d.Stats.Edited != 1 || d.Stats.Added+d.Stats.Removed != 0 {
		t.Errorf("tool-call plan diff %q", ops(d))
	}
}

func TestWordDiff(t *testing.T) {
	tests := []struct {
		a, b string
		want []string
	}{
		{"write the tests", "write the tests", []string{" write the tests"}},
		{"write the tests", "write all the tests", []string{" write ", "+all ", " the tests"}},
		{"run go vet", "run staticcheck", []string{" run ", "-go vet", "+staticcheck"}},
		// A lone space between two changes goes with them, so the edit reads as one phrase.
		{"red green blue", "one green two", []string{"-red green blue", "+one green two"}[0:0]},
		{"", "new", []string{"+new"}},
		{"Ünïcödé wörds", "Ünïcödé wörter", []string{" Ünïcödé ", "-wörds", "+wörter"}},
	}
	for _, tt := range tests {
		runs, hidden := WordDiff(tt.a, tt.b)
		var got []string
		var a, b strings.Builder
		for _, r := range runs {
			got = append(got, string(rune(r.Op))+r.Text)
			if r.Op != Added {
				a.WriteString(r.Text)
			}
			if r.Op != Removed {
				b.WriteString(r.Text)
			}
		}
		if hidden != 0 || a.String() != tt.a || b.String() != tt.b {
			t.Errorf("WordDiff(%q, %q) = %q: does not rebuild both texts", tt.a, tt.b, got)
		}
		if len(tt.want) > 0 && !slices.Equal(got, tt.want) {
			t.Errorf("WordDiff(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestWordDiffBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&a, "w%d ", i)
		if i%3 == 0 {
			fmt.Fprintf(&b, "x%d ", i)
		} else {
			fmt.Fprintf(&b, "w%d ", i)
		}
	}
	runs, hidden := WordDiff(a.String(), b.String())
	size := 0
	for _, r := range runs {
		size += len(r.Text)
	}
	if len(runs) > maxWordChanges || size > 2*maxChangeText || hidden == 0 {
		t.Fatalf("%d runs, %d hidden: not bounded", len(runs), hidden)
	}
}

// bigPlan is n entries with distinct texts; every changeEvery-th entry of the second revision
// has one word edited and its status changed.
func bigPlan(n, changeEvery int) (a, b []Entry) {
	a, b = make([]Entry, n), make([]Entry, n)
	for i := range n {
		a[i] = Entry{Content: fmt.Sprintf("Step %d: update module %d and its tests", i, i*7), Status: StatusPending, Priority: "medium"}
		b[i] = a[i]
		if changeEvery > 0 && i%changeEvery == 0 {
			b[i].Content = fmt.Sprintf("Step %d: update package %d and its tests", i, i*7)
			b[i].Status = StatusCompleted
		}
	}
	return a, b
}

func TestEntriesDiffLarge(t *testing.T) {
	t.Run("a 1% change of 10,000 entries shows as 1%", func(t *testing.T) {
		a, b := bigPlan(10_000, 100)
		d := EntriesDiff(a, b)
		checkStruct(t, entryUnits(a), entryUnits(b), d)
		if d.Stats.Edited != 100 || d.Stats.Same != 9_900 || d.Stats.Added+d.Stats.Removed+d.Stats.Moved != 0 {
			t.Fatalf("stats %+v", d.Stats)
		}
		if len(d.Changes) > 100*(2*contextUnits+2) {
			t.Fatalf("%d items shown for 100 changes", len(d.Changes))
		}
	})
	t.Run("two unrelated 10,000-entry plans stay bounded", func(t *testing.T) {
		a, _ := bigPlan(10_000, 0)
		b := make([]Entry, 10_000)
		for i := range b {
			b[i] = Entry{Content: fmt.Sprintf("Other %d", i), Status: StatusPending}
		}
		d := EntriesDiff(a, b)
		checkBounds(t, d)
		if d.Hidden == 0 || d.Stats.Added+d.Stats.Edited+d.Stats.Moved != 10_000 {
			t.Fatalf("hidden %d stats %+v", d.Hidden, d.Stats)
		}
	})
	t.Run("past maxUnits entries are counted, not compared", func(t *testing.T) {
		a, b := bigPlan(maxUnits+5, 0)
		d := EntriesDiff(a, b)
		if len(d.Fields) != 1 || d.Fields[0].Name != "not compared" {
			t.Fatalf("fields %+v", d.Fields)
		}
	})
}

// BenchmarkStructDiff1000 diffs two 1,000-entry plans that differ as a working agent's do:
// statuses advanced, some entries reworded, a few added, removed and moved.
func BenchmarkStructDiff1000(b *testing.B) {
	x, y := bigPlan(1_000, 10)
	y = append(y[:500], y[510:]...)                                  // ten removed
	y = slices.Insert(y, 200, es("New step one", "New step two")...) // two added
	y = append(y, y[3])                                              // one moved to the end
	y = append(y[:3], y[4:]...)
	pa, pb := Plan{Kind: KindItems, Entries: x}, Plan{Kind: KindItems, Entries: y}
	b.ReportAllocs()
	for b.Loop() {
		StructDiff(pa, pb)
	}
}

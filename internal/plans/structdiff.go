package plans

import (
	"fmt"
	"strings"
)

// ChangeOp says what happened to one entry, block or line between two revisions.
type ChangeOp string

// Change operations. Edited and Moved pair an old unit with a new one: Edited in its place
// (its text, status or priority changed), Moved somewhere else in the order (and maybe
// edited too). Skipped stands for a run of unchanged units that is not shown.
const (
	ChangeSame    ChangeOp = "same"
	ChangeAdded   ChangeOp = "added"
	ChangeRemoved ChangeOp = "removed"
	ChangeEdited  ChangeOp = "edited"
	ChangeMoved   ChangeOp = "moved"
	ChangeSkipped ChangeOp = "skipped"
)

// DiffMode says what a structured diff compares.
type DiffMode string

// Diff modes: checklist entries, rendered markdown blocks, or lines of a text form (formatted
// JSON of tool-call and custom plans, a file plan's address, plans whose kind changed).
const (
	ModeEntries DiffMode = "entries"
	ModeBlocks  DiffMode = "blocks"
	ModeLines   DiffMode = "lines"
)

// StructuredDiff is what changed between two revisions of a plan, as a person reads it. It is
// bounded: at most MaxChanges changes are listed (Hidden counts the rest), long runs of
// unchanged units collapse into one Skipped change, and long texts and word lists are cut.
type StructuredDiff struct {
	Mode    DiffMode      `json:"mode"`
	Fields  []FieldChange `json:"fields,omitempty"` // plan-level changes: the plan removed, its kind, a shared plan's title
	Changes []Change      `json:"changes"`          // in the order of the new revision; removed units where they were
	Stats   DiffStats     `json:"stats"`            // counted over every change, shown or not
	Hidden  int           `json:"hidden,omitempty"` // changes (not Same or Skipped) beyond the cap, not in Changes
}

// FieldChange is one plan-level value that changed.
type FieldChange struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// NewFieldChange records that a plan-level value changed, each side cut to a readable length
// (a title or an address can be anything an agent sent).
func NewFieldChange(name, from, to string) FieldChange {
	f, _ := boundText(from)
	t, _ := boundText(to)
	return FieldChange{Name: name, From: f, To: t}
}

// DiffStats counts the changes of a diff by kind.
type DiffStats struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Edited  int `json:"edited"`
	Moved   int `json:"moved"`
	Same    int `json:"same"`
}

// Change is one unit (an entry, a markdown block or a line) of a structured diff.
type Change struct {
	Op ChangeOp `json:"op"`
	// From and To are 1-based positions in the old and new revision; 0 where the unit is
	// absent. For Skipped they are the first positions of the run.
	From  int    `json:"from,omitempty"`
	To    int    `json:"to,omitempty"`
	Count int    `json:"count,omitempty"` // Skipped: how many unchanged units the run holds
	Kind  string `json:"kind,omitempty"`  // blocks: heading, paragraph, item, task, quote, code, row, rule, html; lines: line
	Level int    `json:"level,omitempty"` // a heading's level or a list item's depth
	// Text is the unit's text (the old text for Removed), cut at maxChangeText bytes.
	Text    string `json:"text,omitempty"`
	TextCut bool   `json:"textCut,omitempty"`
	// Words is the word-by-word edit of the text when it changed; WordsHidden counts the
	// words of the edit not listed.
	Words       []WordChange `json:"words,omitempty"`
	WordsHidden int          `json:"wordsHidden,omitempty"`
	// Old and new status and priority of an entry; they differ when that changed.
	OldStatus   string `json:"oldStatus,omitempty"`
	Status      string `json:"status,omitempty"`
	OldPriority string `json:"oldPriority,omitempty"`
	Priority    string `json:"priority,omitempty"`
}

// WordChange is one run of words kept, added or removed.
type WordChange struct {
	Op   DiffOp `json:"op"`
	Text string `json:"text"`
}

// TextEdited reports whether the change carries a word-by-word edit of the text.
func (c Change) TextEdited() bool { return len(c.Words) > 0 }

// StatusChanged reports whether an entry's status changed.
func (c Change) StatusChanged() bool {
	return (c.Op == ChangeEdited || c.Op == ChangeMoved) && c.OldStatus != c.Status
}

// PriorityChanged reports whether an entry's priority changed.
func (c Change) PriorityChanged() bool {
	return (c.Op == ChangeEdited || c.Op == ChangeMoved) && c.OldPriority != c.Priority
}

// Empty reports whether the two revisions do not differ.
func (d StructuredDiff) Empty() bool {
	s := d.Stats
	return len(d.Fields) == 0 && s.Added+s.Removed+s.Edited+s.Moved == 0
}

// Summary is the diff in a few words, e.g. "2 added, 1 moved, 3 edited".
func (d StructuredDiff) Summary() string {
	if d.Empty() {
		return "no changes"
	}
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{d.Stats.Added, "added"}, {d.Stats.Removed, "removed"}, {d.Stats.Moved, "moved"}, {d.Stats.Edited, "changed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	if len(d.Fields) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", len(d.Fields), pluralWord(len(d.Fields), "detail", "details")))
	}
	return strings.Join(parts, ", ")
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Bounds of a structured diff: what a page shows must stay readable and small whatever the
// plans' size.
const (
	// MaxChanges is how many changes (not Same or Skipped) a diff lists.
	MaxChanges = 300
	// maxChangeText bounds the text of one unit shown.
	maxChangeText = 2000
	// maxWordChanges bounds the word runs of one edited text.
	maxWordChanges = 200
	// maxUnits bounds the units of one revision compared; the rest are counted, not compared.
	maxUnits = 50_000
	// contextUnits is how many unchanged units are shown on each side of a change.
	contextUnits = 2
	// unitBudget and wordBudget bound the Myers searches, in diagonal steps, so that two large
	// revisions that differ entirely still diff in milliseconds (as remove-all/add-all).
	unitBudget = 4 << 20
	wordBudget = 1 << 18
)

// StructDiff compares two revisions of a plan: checklists entry by entry, markdown plans block
// by block, anything else line by line of its text form; edited text word by word.
func StructDiff(a, b Plan) StructuredDiff {
	var fields []FieldChange
	if a.Removed != b.Removed {
		fields = append(fields, FieldChange{"plan", presence(a.Removed), presence(b.Removed)})
	}
	if a.Kind != b.Kind && !a.Removed && !b.Removed {
		fields = append(fields, FieldChange{"kind", string(a.Kind), string(b.Kind)})
	}
	if a.URI != b.URI && a.Kind == KindFile && b.Kind == KindFile {
		fields = append(fields, NewFieldChange("file", a.URI, b.URI))
	}
	var d StructuredDiff
	switch {
	case a.Removed || b.Removed:
		d = StructuredDiff{Mode: ModeLines}
	case a.Kind == KindMarkdown && b.Kind == KindMarkdown:
		d = MarkdownDiff(a.Markdown, b.Markdown)
	case a.Kind == KindItems && b.Kind == KindItems:
		d = EntriesDiff(a.Entries, b.Entries)
	case a.Kind == KindFile && b.Kind == KindFile:
		d = StructuredDiff{Mode: ModeLines}
	default:
		d = LinesDiff(a.Lines(), b.Lines())
	}
	d.Fields = append(fields, d.Fields...)
	return d
}

func presence(removed bool) string {
	if removed {
		return "removed"
	}
	return "present"
}

// EntriesDiff compares two checklists: entries matched by content (exactly, then by
// similarity), so an entry whose wording changed is one edited entry, not a removal and an
// addition, and an entry that changed place is moved.
func EntriesDiff(a, b []Entry) StructuredDiff {
	conv := func(es []Entry) []unit {
		us := make([]unit, min(len(es), maxUnits))
		for i := range us {
			e := es[i]
			us[i] = unit{key: e.Content, text: e.Content, status: e.Status, priority: e.Priority}
		}
		return us
	}
	d := diffUnits(conv(a), conv(b), true)
	d.Mode = ModeEntries
	d.notCompared("entries", len(a), len(b))
	return d
}

// LinesDiff compares two texts line by line; a line edited in place is diffed word by word.
// Lines do not move: in formatted JSON a "}," elsewhere is not the same line moved.
func LinesDiff(a, b []string) StructuredDiff {
	conv := func(ls []string) []unit {
		us := make([]unit, min(len(ls), maxUnits))
		for i := range us {
			us[i] = unit{key: ls[i], text: ls[i], kind: "line"}
		}
		return us
	}
	d := diffUnits(conv(a), conv(b), false)
	d.Mode = ModeLines
	d.notCompared("lines", len(a), len(b))
	return d
}

// notCompared records, as a plan-level field, units beyond maxUnits that were not compared.
func (d *StructuredDiff) notCompared(what string, na, nb int) {
	if na > maxUnits || nb > maxUnits {
		d.Fields = append(d.Fields, FieldChange{"not compared", fmt.Sprintf("%d %s", max(na-maxUnits, 0), what),
			fmt.Sprintf("%d %s", max(nb-maxUnits, 0), what)})
	}
}

// boundText bounds a text shown, on a rune boundary.
func boundText(s string) (string, bool) {
	if len(s) <= maxChangeText {
		return s, false
	}
	i := maxChangeText
	for i > 0 && !runeStart(s[i]) {
		i--
	}
	return s[:i], true
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// MarshalText writes an operation as its sign ("+", "-", " "), as the JSON API shows it.
func (op DiffOp) MarshalText() ([]byte, error) { return []byte{byte(op)}, nil }

// UnmarshalText reads an operation written by MarshalText.
func (op *DiffOp) UnmarshalText(b []byte) error {
	if len(b) != 1 || (b[0] != byte(Same) && b[0] != byte(Added) && b[0] != byte(Removed)) {
		return fmt.Errorf("diff operation %q: want \" \", \"+\" or \"-\"", b)
	}
	*op = DiffOp(b[0])
	return nil
}

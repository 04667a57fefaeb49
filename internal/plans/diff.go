package plans

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/plandash/plandash/internal/textdiff"
)

// DiffOp says whether a line was kept, added or removed.
type DiffOp byte

// Diff operations.
const (
	Same    DiffOp = ' '
	Added   DiffOp = '+'
	Removed DiffOp = '-'
)

// DiffLine is one line of a diff.
type DiffLine struct {
	Op   DiffOp
	Text string
}

// Lines renders a plan as the lines a person compares between revisions.
func (p Plan) Lines() []string {
	switch {
	case p.Removed:
		return []string{"(plan removed)"}
	case p.Kind == KindMarkdown:
		return capLines(strings.Split(p.Markdown, "\n"))
	case p.Kind == KindFile:
		return []string{"file: " + p.URI}
	case len(p.Entries) > 0:
		out := make([]string, min(len(p.Entries), maxLines))
		for i := range out {
			e := p.Entries[i]
			out[i] = fmt.Sprintf("[%s] %s (%s)", e.Status, e.Content, e.Priority)
		}
		if n := len(p.Entries) - len(out); n > 0 {
			out = append(out, fmt.Sprintf("… %d more entries not shown", n))
		}
		return out
	case len(p.Raw) > 0 && json.Valid(p.Raw):
		return capLines(strings.Split(FormatJSON(p.Raw).Display(), "\n"))
	}
	return nil
}

// maxLines bounds the lines of one revision a diff compares and shows: a history page renders
// every line of two revisions, with markup around each.
const maxLines = 2000

func capLines(lines []string) []string {
	if len(lines) <= maxLines {
		return lines
	}
	return append(lines[:maxLines:maxLines], fmt.Sprintf("… %d more lines not shown", len(lines)-maxLines))
}

// Diff computes a minimal line diff from a to b: the fewest lines removed and added (so the
// Same lines are a longest common subsequence). It is Myers's O((N+M)·D) algorithm in linear
// space, so plans of tens of thousands of lines that differ a little diff fast, and plans that
// differ a lot still come out exact rather than as remove-all/add-all. Within each run of
// changes the removed lines come before the added ones, as a person reads a replacement.
func Diff(a, b []string) []DiffLine {
	ids := make(map[string]int32, len(a)+len(b))
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	out := make([]DiffLine, 0, max(len(a), len(b)))
	for _, s := range diffIDs(intern(a), intern(b), 0) {
		switch s.op {
		case Same, Removed:
			for _, l := range a[s.a0:s.a1] {
				out = append(out, DiffLine{s.op, l})
			}
		case Added:
			for _, l := range b[s.b0:s.b1] {
				out = append(out, DiffLine{s.op, l})
			}
		}
	}
	groupChanges(out)
	return out
}

// span is one run of an edit script: a[a0:a1] kept as b[b0:b1] (Same), a[a0:a1] removed, or
// b[b0:b1] added. The structured diff works on these index ranges rather than on lines.
type span struct {
	op             DiffOp
	a0, a1, b0, b1 int
}

// diffIDs diffs two sequences of interned ids (textdiff.IDs) into spans of this package's ops.
func diffIDs(a, b []int32, budget int) []span {
	runs := textdiff.IDs(a, b, budget)
	out := make([]span, len(runs))
	for i, r := range runs {
		op := Same
		switch r.Op {
		case textdiff.Insert:
			op = Added
		case textdiff.Delete:
			op = Removed
		}
		out[i] = span{op, r.A0, r.A1, r.B0, r.B1}
	}
	return out
}

// groupChanges reorders each run of changed lines so its removals come first. Lines only move
// within a run between two Same lines, so the edit script still turns a into b.
func groupChanges(out []DiffLine) {
	for i := 0; i < len(out); {
		if out[i].Op == Same {
			i++
			continue
		}
		j := i
		for j < len(out) && out[j].Op != Same {
			j++
		}
		slices.SortStableFunc(out[i:j], func(x, y DiffLine) int {
			return cmp.Compare(opRank(x.Op), opRank(y.Op))
		})
		i = j
	}
}

func opRank(op DiffOp) int {
	if op == Removed {
		return 0
	}
	return 1
}

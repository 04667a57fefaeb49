package plans

import (
	"encoding/json"
	"fmt"
	"strings"
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

// maxDiffCells bounds the LCS table; beyond it the diff falls back to remove-all/add-all so a
// pair of huge plans cannot exhaust memory.
const maxDiffCells = 4 << 20

// Diff computes a line diff from a to b (longest common subsequence).
func Diff(a, b []string) []DiffLine {
	n, m := len(a), len(b)
	if n*m > maxDiffCells {
		out := make([]DiffLine, 0, n+m)
		for _, l := range a {
			out = append(out, DiffLine{Removed, l})
		}
		for _, l := range b {
			out = append(out, DiffLine{Added, l})
		}
		return out
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []DiffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{Same, a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, DiffLine{Removed, a[i]})
			i++
		default:
			out = append(out, DiffLine{Added, b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, DiffLine{Removed, a[i]})
	}
	for ; j < m; j++ {
		out = append(out, DiffLine{Added, b[j]})
	}
	return out
}

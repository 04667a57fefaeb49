package dagview

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/plans"
)

// num formats a coordinate; one decimal is finer than a pixel and keeps
// large drawings small.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func round1(f float64) float64 {
	if f < 0 {
		return -float64(int64(-f*10+0.5)) / 10
	}
	return float64(int64(f*10+0.5)) / 10
}

func coord(f float64) string { return num(round1(f)) }

func translate(x, y float64) string {
	return "translate(" + coord(x) + "," + coord(y) + ")"
}

// pathData renders a polyline as SVG path data.
func pathData(pts []dag.Point) string {
	b := make([]byte, 0, 16*len(pts))
	for i, p := range pts {
		if i == 0 {
			b = append(b, 'M')
		} else {
			b = append(b, ' ', 'L')
		}
		b = strconv.AppendFloat(b, round1(p.X), 'f', -1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, round1(p.Y), 'f', -1, 64)
	}
	return string(b)
}

func viewBox(g dag.Geometry) string {
	return "0 0 " + coord(g.Width) + " " + coord(g.Height)
}

func statusName(s dag.Status) string {
	if s == "" {
		return "none"
	}
	return string(s)
}

// statusIcon is the glyph drawn beside the label, so status never rests on
// colour alone.
func statusIcon(s dag.Status) string {
	switch s {
	case dag.StatusPending:
		return "○"
	case dag.StatusInProgress:
		return "◐"
	case dag.StatusCompleted:
		return "✓"
	case dag.StatusFailed:
		return "✗"
	case dag.StatusSkipped:
		return "⤼"
	}
	return "•"
}

func statusText(s dag.Status) string {
	switch s {
	case dag.StatusPending:
		return "pending"
	case dag.StatusInProgress:
		return "in progress"
	case dag.StatusCompleted:
		return "completed"
	case dag.StatusFailed:
		return "failed"
	case dag.StatusSkipped:
		return "skipped"
	}
	return "no status"
}

func problemTitle(k dag.ProblemKind) string {
	switch k {
	case dag.ProblemCycle:
		return "Cycle"
	case dag.ProblemUnresolved:
		return "Unresolved read"
	case dag.ProblemDuplicateWriter:
		return "Duplicate writer"
	case dag.ProblemSelfRead:
		return "Reads its own output"
	case dag.ProblemMissingTool:
		return "Missing tool"
	case dag.ProblemMalformedPath:
		return "Malformed path"
	}
	return string(k)
}

// argsJSON shows a call's arguments as one indented object, in the order
// the agent wrote them.
func argsJSON(c *dag.Call) string {
	if len(c.Args) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, a := range c.Args {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(a.Name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(a.Value)
	}
	b.WriteByte('}')
	return plans.FormatJSON(b.Bytes()).Display()
}

// rawJSON is an initial state's value, bounded like every JSON value shown.
func rawJSON(v json.RawMessage) string { return plans.FormatJSON(v).Display() }

func itoa(i int) string { return strconv.Itoa(i) }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// statusRank orders statuses as a run goes through them, for the legend.
func statusRank(s dag.Status) int {
	switch s {
	case dag.StatusPending:
		return 0
	case dag.StatusInProgress:
		return 1
	case dag.StatusCompleted:
		return 2
	case dag.StatusFailed:
		return 3
	case dag.StatusSkipped:
		return 4
	}
	return 5
}

// markGlyph is the badge drawn on a node for a kind of problem; with the
// box's stroke pattern (markShape) it tells problems apart without colour.
func markGlyph(k dag.ProblemKind) string {
	switch k {
	case dag.ProblemCycle:
		return "↻"
	case dag.ProblemUnresolved:
		return "?"
	case dag.ProblemDuplicateWriter:
		return "2×"
	case dag.ProblemSelfRead:
		return "↺"
	}
	return "!"
}

// markShape says in words how a problem's nodes are outlined.
func markShape(k dag.ProblemKind) string {
	switch k {
	case dag.ProblemCycle:
		return "dashed outline, ↻"
	case dag.ProblemUnresolved:
		return "dotted outline, ?"
	case dag.ProblemDuplicateWriter:
		return "double outline, 2×"
	case dag.ProblemSelfRead:
		return "dashed outline, ↺"
	}
	return "dashed outline, !"
}

func hasMark(ms []dag.ProblemKind, k dag.ProblemKind) bool { return slices.Contains(ms, k) }

// marksText spells out a node's problems for its name and tooltip.
func marksText(ms []dag.ProblemKind) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("; problems: ")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strings.ToLower(problemTitle(m)))
	}
	return b.String()
}

package templates

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
)

// ReviewTarget is one part of a plan a reviewer may comment on, as the composer offers it.
type ReviewTarget struct {
	Value string // as the form posts it: plan, entry:N, line:N, call:ID
	Label string
}

// maxTargetLabel bounds a target's label: long entries are told apart by their start.
const maxTargetLabel = 70

// reviewTargets lists what a reviewer may comment on: the whole plan, then each entry, each
// non-blank markdown line or each call.
func reviewTargets(p approval.PlanBody) []ReviewTarget {
	out := []ReviewTarget{{Value: approval.TargetPlan, Label: "The whole plan"}}
	switch p.Type {
	case approval.TypeItems:
		for i, e := range p.Entries {
			n := strconv.Itoa(i + 1)
			out = append(out, ReviewTarget{Value: "entry:" + n, Label: "Entry " + n + ": " + shorten(e.Content, maxTargetLabel)})
		}
	case approval.TypeMarkdown:
		blocks := commentBlocks(p)
		for i, l := range approval.MarkdownLines(p.Markdown) {
			if strings.TrimSpace(l) == "" {
				continue
			}
			n := strconv.Itoa(i + 1)
			// No colon before the text's: review.js takes the label up to it as the draft's place.
			out = append(out, ReviewTarget{Value: "line:" + n, Label: lineLabel(i+1, blocks) + ": " + shorten(strings.TrimSpace(l), maxTargetLabel)})
		}
	case approval.TypeDAG:
		for _, c := range p.CallList() {
			out = append(out, ReviewTarget{Value: "call:" + c.ID, Label: "Call " + c.ID + ": " + shorten(c.Label, maxTargetLabel)})
		}
	}
	return out
}

// targetValue is a comment's target as the form posts it.
func targetValue(c approval.Comment) string {
	switch c.Target {
	case approval.TargetEntry:
		return "entry:" + strconv.Itoa(c.Entry)
	case approval.TargetLine:
		return "line:" + strconv.Itoa(c.Line)
	case approval.TargetCall:
		return "call:" + c.CallID
	}
	return approval.TargetPlan
}

// whereLabel is what a comment points at, capitalised for a list; blocks are the commented
// plan's (commentBlocks), so a comment on a markdown line also names its block.
func whereLabel(c approval.Comment, blocks []plans.Block) string {
	if c.Target == approval.TargetLine {
		return lineLabel(c.Line, blocks)
	}
	w := c.Where()
	return strings.ToUpper(w[:1]) + w[1:]
}

// commentBlocks are the blocks of a markdown plan, nil for any other.
//
// Comments on markdown name source lines (the agent reads "line 14" in its own text, and the
// gate checks and quotes by line), while a diff of markdown numbers rendered blocks. Rather
// than change what comments point at, the page names both where a comment names a line:
// "Line 14 (block 4)", the block number being the one the diff on the same page shows.
func commentBlocks(p approval.PlanBody) []plans.Block {
	if p.Type != approval.TypeMarkdown {
		return nil
	}
	return plans.MarkdownBlocks(p.Markdown)
}

// lineLabel names a markdown source line and the block it is part of, as diffs number blocks.
func lineLabel(line int, blocks []plans.Block) string {
	l := "Line " + strconv.Itoa(line)
	if b := plans.BlockAtLine(blocks, line); b > 0 {
		l += " (block " + strconv.Itoa(b) + ")"
	}
	return l
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// PriorComment is a comment of the previous revision and whether this one changed what it
// pointed at.
type PriorComment struct {
	approval.Comment
	Addressed bool
}

func priorComments(prev, cur approval.Request) []PriorComment {
	if prev.Decision == nil {
		return nil
	}
	var out []PriorComment
	for _, c := range prev.Decision.Feedback {
		out = append(out, PriorComment{Comment: c, Addressed: approval.Addressed(prev.Plan, c, cur.Plan)})
	}
	return out
}

func addressedCount(cs []PriorComment) int {
	n := 0
	for _, c := range cs {
		if c.Addressed {
			n++
		}
	}
	return n
}

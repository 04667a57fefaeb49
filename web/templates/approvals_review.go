package templates

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/approval"
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
		for i, l := range approval.MarkdownLines(p.Markdown) {
			if strings.TrimSpace(l) == "" {
				continue
			}
			n := strconv.Itoa(i + 1)
			out = append(out, ReviewTarget{Value: "line:" + n, Label: "Line " + n + ": " + shorten(strings.TrimSpace(l), maxTargetLabel)})
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

// whereLabel is what a comment points at, capitalised for a list.
func whereLabel(c approval.Comment) string {
	w := c.Where()
	return strings.ToUpper(w[:1]) + w[1:]
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

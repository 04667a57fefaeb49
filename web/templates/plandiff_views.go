package templates

import (
	"fmt"

	"github.com/plandash/plandash/internal/plans"
)

// diffSummary is the first line of a diff: what changed, in words.
func diffSummary(d plans.StructuredDiff) string {
	if d.Empty() {
		return "No changes."
	}
	return "Changes: " + d.Summary() + "."
}

// unitWord names what a diff compares, singular (n == 1) or plural.
func unitWord(mode plans.DiffMode, n int) string {
	words := map[plans.DiffMode][2]string{
		plans.ModeEntries: {"entry", "entries"},
		plans.ModeBlocks:  {"block", "blocks"},
	}
	w, ok := words[mode]
	if !ok {
		w = [2]string{"line", "lines"}
	}
	if n == 1 {
		return w[0]
	}
	return w[1]
}

// changeSign is the mark in the margin of a change; the label beside it says the same in words.
func changeSign(op plans.ChangeOp) string {
	switch op {
	case plans.ChangeAdded:
		return "+"
	case plans.ChangeRemoved:
		return "−"
	case plans.ChangeEdited:
		return "~"
	case plans.ChangeMoved:
		return "↕"
	}
	return " "
}

// changeLabel says what happened to a unit in words, so the diff does not rely on colour.
func changeLabel(c plans.Change) string {
	switch c.Op {
	case plans.ChangeAdded:
		return "added"
	case plans.ChangeRemoved:
		return "removed"
	case plans.ChangeMoved:
		if c.TextEdited() {
			return "moved and edited"
		}
		return "moved"
	case plans.ChangeEdited:
		if c.TextEdited() {
			return "edited"
		}
		return "changed"
	}
	return ""
}

// changePos is where the unit sits, named as the rest of the page names it ("entry 4", "block
// 3", "line 7"; numbers from 1, as review comments count), so a comment's "entry 4" and the
// diff's are the same words. A unit that changed place shows both numbers, "entry 2 → 5": the
// first is what comments on the older revision call it.
func changePos(mode plans.DiffMode, c plans.Change) string {
	w := unitWord(mode, 1)
	switch {
	case c.From > 0 && c.To > 0 && c.From != c.To && c.Op != plans.ChangeSame:
		return fmt.Sprintf("%s %d → %d", w, c.From, c.To)
	case c.To > 0:
		return fmt.Sprintf("%s %d", w, c.To)
	}
	return fmt.Sprintf("was %s %d", w, c.From)
}

// blockLabel names a markdown block: "heading 2", "list item", "code".
func blockLabel(c plans.Change) string {
	switch c.Kind {
	case "heading":
		return fmt.Sprintf("heading %d", c.Level)
	case "item":
		return "list item"
	case "row":
		return "table row"
	}
	return c.Kind
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return priorityLabel(s)
}

// editDiff is what a refused edit on the gate changes: the plan as submitted against the
// person's version.
func editDiff(p ApprovalPage) plans.StructuredDiff {
	if p.Edit == nil {
		return plans.StructuredDiff{}
	}
	r := p.Request
	return plans.StructDiff(r.Plan.Plan(r.SessionID), p.Edit.Plan(r.SessionID))
}

// sharedRevLabel names a shared plan's recorded state in its history list.
func sharedRevLabel(r SharedRevision) string {
	if r.Removed {
		return "deleted"
	}
	return fmt.Sprintf("rev %d", r.Revision)
}

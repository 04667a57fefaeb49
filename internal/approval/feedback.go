package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Comment targets: what part of the plan a reviewer's comment is about.
const (
	TargetPlan  = "plan"  // the plan as a whole
	TargetEntry = "entry" // one checklist entry, by number
	TargetLine  = "line"  // one line of a markdown plan, by number
	TargetCall  = "call"  // one call of a tool-call plan, by its id
)

// Limits on the feedback of one decision: enough for a thorough review, bounded so the agent's
// answer (and the plain-text rendering of it) stays a readable size.
const (
	MaxComments = 100
	MaxQuote    = 300 // characters of the commented text copied into a comment
)

// Comment is one remark of a review, pinned to a part of the plan. Numbers count from 1, as
// people count and as the page shows them. Quote is what the comment was made on, copied from
// the plan by the gate (never taken from the client), so an agent that has since changed its
// plan still knows which text was meant.
type Comment struct {
	Target  string `json:"target"`           // plan, entry, line or call
	Entry   int    `json:"entry,omitempty"`  // entry: its number, from 1
	Line    int    `json:"line,omitempty"`   // line: its number, from 1
	CallID  string `json:"callId,omitempty"` // call: its id ("_id", or its position from 0)
	Quote   string `json:"quote,omitempty"`
	Comment string `json:"comment"`
}

// Where says in words what the comment points at: "entry 2", "line 14", "call fetch".
func (c Comment) Where() string {
	switch c.Target {
	case TargetEntry:
		return "entry " + strconv.Itoa(c.Entry)
	case TargetLine:
		return "line " + strconv.Itoa(c.Line)
	case TargetCall:
		return "call " + strconv.Quote(c.CallID)
	}
	return "the plan"
}

// FeedbackText renders a review as plain text for agents that read only text: the overall
// comment, then each comment with what it points at and the text it quotes.
func FeedbackText(overall string, comments []Comment) string {
	var b strings.Builder
	if len(comments) > 0 {
		b.WriteString("The reviewer requested changes to the plan. Revise it and submit it again.\n")
	}
	if s := strings.TrimSpace(overall); s != "" {
		if len(comments) > 0 {
			b.WriteString("\nOverall: ")
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for i, c := range comments {
		fmt.Fprintf(&b, "\n%d. On %s", i+1, c.Where())
		if c.Quote != "" {
			fmt.Fprintf(&b, " (%q)", c.Quote)
		}
		b.WriteString(":\n   ")
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(c.Comment), "\n", "\n   "))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// Reason is what an agent reads when its plan is not to run: the feedback as text when the
// reviewer requested changes, else the comment.
func (d Decision) Reason() string {
	if len(d.Feedback) > 0 {
		return FeedbackText(d.Comment, d.Feedback)
	}
	return d.Comment
}

// checkFeedback resolves each comment against the plan: the target must exist, and its quote
// is copied from the plan. Comments on the same target keep their order.
func checkFeedback(p PlanBody, in []Comment) ([]Comment, error) {
	if len(in) > MaxComments {
		return nil, tooLarge("%d comments; the limit is %d", len(in), MaxComments)
	}
	if len(in) == 0 {
		return nil, nil
	}
	var calls map[string]string
	out := make([]Comment, 0, len(in))
	for i, c := range in {
		n := i + 1
		text := strings.TrimSpace(c.Comment)
		if text == "" {
			return nil, invalid("comment %d has no text", n)
		}
		if err := checkText(fmt.Sprintf("comment %d", n), text, MaxComment); err != nil {
			return nil, err
		}
		r := Comment{Target: c.Target, Comment: text}
		switch c.Target {
		case TargetPlan, "":
			r.Target = TargetPlan
		case TargetEntry:
			if p.Type != TypeItems || c.Entry < 1 || c.Entry > len(p.Entries) {
				return nil, invalid("comment %d is on entry %d, which the plan does not have", n, c.Entry)
			}
			r.Entry, r.Quote = c.Entry, p.Entries[c.Entry-1].Content
		case TargetLine:
			lines := MarkdownLines(p.Markdown)
			if p.Type != TypeMarkdown || c.Line < 1 || c.Line > len(lines) {
				return nil, invalid("comment %d is on line %d, which the plan does not have", n, c.Line)
			}
			r.Line, r.Quote = c.Line, strings.TrimSpace(lines[c.Line-1])
		case TargetCall:
			if calls == nil {
				calls = CallLabels(p)
			}
			label, ok := calls[c.CallID]
			if p.Type != TypeDAG || !ok {
				return nil, invalid("comment %d is on call %q, which the plan does not have", n, c.CallID)
			}
			r.CallID, r.Quote = c.CallID, label
		default:
			return nil, invalid("comment %d has target %q: use plan, entry, line or call", n, c.Target)
		}
		r.Quote = clip(r.Quote, MaxQuote)
		out = append(out, r)
	}
	return out, nil
}

// MarkdownLines are a markdown plan's lines, numbered from 1 by their index + 1.
func MarkdownLines(md string) []string {
	return strings.Split(strings.TrimRight(md, "\n"), "\n")
}

// CallID is one call of a tool-call plan as a comment names it.
type CallID struct {
	ID    string // "_id", or the position from 0 as the DAG parser names a call without one
	Label string // the tool and title, as the page shows the call
	Raw   json.RawMessage
}

// CallList lists a tool-call plan's calls in order; nil for other plans or unreadable calls.
func (p PlanBody) CallList() []CallID {
	if p.Type != TypeDAG {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(p.Calls, &items) != nil {
		return nil
	}
	out := make([]CallID, 0, len(items))
	for i, it := range items {
		var v struct {
			ID    any    `json:"_id"`
			Tool  string `json:"_tool"`
			Title string `json:"_title"`
		}
		_ = json.Unmarshal(it, &v)
		id := strconv.Itoa(i)
		switch x := v.ID.(type) {
		case string:
			if x != "" {
				id = x
			}
		case float64:
			id = strconv.FormatFloat(x, 'f', -1, 64)
		}
		label := strings.TrimSpace(v.Tool + " " + v.Title)
		out = append(out, CallID{ID: id, Label: label, Raw: bytes.TrimSpace(it)})
	}
	return out
}

// CallLabels maps a tool-call plan's call ids to their labels.
func CallLabels(p PlanBody) map[string]string {
	m := map[string]string{}
	for _, c := range p.CallList() {
		if _, dup := m[c.ID]; !dup {
			m[c.ID] = c.Label
		}
	}
	return m
}

// clip shortens s to max characters, marking the cut.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// Addressed reports whether next, a revision of prev, changed what comment c pointed at: the
// entry, line or call it quoted is no longer in the plan as it was (edited, moved away or
// removed); a comment on the whole plan counts as addressed when anything changed. It is the
// page's hint to the reviewer, not a judgment of the fix.
func Addressed(prev PlanBody, c Comment, next PlanBody) bool {
	switch c.Target {
	case TargetEntry:
		if prev.Type != TypeItems || c.Entry < 1 || c.Entry > len(prev.Entries) {
			return false
		}
		was := prev.Entries[c.Entry-1]
		for _, e := range next.Entries {
			if e.SameShown(was) {
				return false
			}
		}
		return true
	case TargetLine:
		lines := MarkdownLines(prev.Markdown)
		if prev.Type != TypeMarkdown || c.Line < 1 || c.Line > len(lines) {
			return false
		}
		was := strings.TrimSpace(lines[c.Line-1])
		if next.Type != TypeMarkdown {
			return true
		}
		for _, l := range MarkdownLines(next.Markdown) {
			if strings.TrimSpace(l) == was {
				return false
			}
		}
		return true
	case TargetCall:
		for _, a := range prev.CallList() {
			if a.ID != c.CallID {
				continue
			}
			for _, b := range next.CallList() {
				if b.ID == a.ID {
					return !jsonEqual(a.Raw, b.Raw)
				}
			}
			return true
		}
		return false
	}
	return !prev.Equal(next)
}

// jsonEqual compares two JSON values by meaning, not spelling (spacing, key order).
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	p, _ := json.Marshal(x)
	q, _ := json.Marshal(y)
	return bytes.Equal(p, q)
}

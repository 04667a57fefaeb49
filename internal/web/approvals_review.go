package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// feedbackFromForm reads a review's comments from the decision form: c_target and c_text
// pairs in document order, the drafts first and then the composer, so a comment typed but not
// yet added is sent too. Targets are "plan", "entry:N", "line:N" and "call:ID"; the gate checks
// that each exists in the plan.
func feedbackFromForm(form url.Values) ([]approval.Comment, error) {
	targets, texts := form["c_target"], form["c_text"]
	if len(targets) != len(texts) {
		return nil, errs.Errorf(errs.Invalid, "the form sent %d comments but %d targets", len(texts), len(targets))
	}
	if len(texts) > approval.MaxComments+1 { // the composer's pair may be empty
		return nil, errs.Errorf(errs.TooLarge, "%d comments; the limit is %d", len(texts), approval.MaxComments)
	}
	var out []approval.Comment
	for i, text := range texts {
		text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
		if text == "" {
			continue
		}
		c, err := parseTarget(targets[i])
		if err != nil {
			return nil, err
		}
		c.Comment = text
		out = append(out, c)
	}
	return out, nil
}

// parseTarget reads a comment target as the form spells it.
func parseTarget(v string) (approval.Comment, error) {
	kind, arg, _ := strings.Cut(v, ":")
	c := approval.Comment{Target: kind}
	var err error
	switch kind {
	case approval.TargetPlan:
		return c, nil
	case approval.TargetEntry:
		c.Entry, err = strconv.Atoi(arg)
	case approval.TargetLine:
		c.Line, err = strconv.Atoi(arg)
	case approval.TargetCall:
		c.CallID = arg
	default:
		err = errs.Errorf(errs.Invalid, "unknown target")
	}
	if err != nil {
		return c, errs.Errorf(errs.Invalid, "the comment target %q is not one: use plan, entry:N, line:N or call:ID", truncateText(v, 80))
	}
	return c, nil
}

func truncateText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

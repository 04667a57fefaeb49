package waits

import (
	"context"
	"errors"
	"strings"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// Answer is a person's answer to a wait.
type Answer struct {
	Action string `json:"action"` // one of the wait's actions (for plans: approve or reject)
	// Text is free text: a question's own answer, or the comment of a plan's decision.
	Text string `json:"text,omitempty"`
	// Answers answers a question wait with several questions: by question text, the chosen
	// labels (several for a multiple-choice question) or free text. Action may then be empty.
	Answers map[string][]string `json:"answers,omitempty"`
	By      string              `json:"-"` // who answered, as the audit says it
}

// MaxAnswerText bounds an answer's free text, in bytes.
const MaxAnswerText = 16 << 10

// EndedError says the wait had already ended: someone answered first (here, in the terminal,
// in the IDE), or its deadline decided. It is a conflict; Outcome says what happened.
type EndedError struct {
	ID      string
	Outcome string
}

func (e *EndedError) Error() string {
	return "already decided: the wait " + e.ID + " ended (" + e.Outcome + ")"
}

// Unwrap makes the error a domain conflict.
func (e *EndedError) Unwrap() error { return &errs.Error{Kind: errs.Conflict, Msg: e.Error()} }

// Answer answers wait id: the first answer wins; a wait that already ended is an *EndedError. It
// returns the wait as it ended and the outcome in words ("approved").
func (s *Service) Answer(ctx context.Context, id string, a Answer) (Wait, string, error) {
	if len(a.Text) > MaxAnswerText {
		return Wait{}, "", errs.Errorf(errs.TooLarge, "the answer's text is %d bytes; the limit is %d", len(a.Text), MaxAnswerText)
	}
	switch {
	case strings.HasPrefix(id, prefixPlan):
		return s.answerPlan(ctx, id, a)
	case strings.HasPrefix(id, prefixPermission):
		return s.answerPermission(ctx, id, a)
	case strings.HasPrefix(id, prefixQuestion), strings.HasPrefix(id, prefixInput):
		if s.asked != nil {
			w, outcome, err := s.asked.Answer(ctx, id, a)
			return w.Wait(s.who(ctx)(w.SessionID)), outcome, err
		}
	}
	return Wait{}, "", errs.Errorf(errs.NotFound, "no wait %q", id)
}

func (s *Service) answerPlan(ctx context.Context, id string, a Answer) (Wait, string, error) {
	action := approval.Action(a.Action)
	if action != approval.Approve && action != approval.Reject {
		return Wait{}, "", errs.Errorf(errs.Invalid, "action must be approve or reject for a plan, not %q", a.Action)
	}
	reqID := strings.TrimPrefix(id, prefixPlan)
	r, err := s.gate.Get(ctx, reqID)
	if err != nil {
		return Wait{}, "", err
	}
	before := planWait(r, s.who(ctx)(r.SessionID))
	if r.Decided() {
		return before, "", &EndedError{ID: id, Outcome: decidedWords(r)}
	}
	r, err = s.gate.Decide(ctx, reqID, approval.DecisionInput{Action: action, By: a.By, Comment: a.Text})
	var de *approval.DecidedError
	if errors.As(err, &de) {
		return before, "", &EndedError{ID: id, Outcome: decidedWords(de.Request)}
	}
	if err != nil {
		return Wait{}, "", err
	}
	return before, r.Status.Words(), nil
}

// decidedWords says how a request was decided: "approved by ann", "rejected at its deadline".
func decidedWords(r approval.Request) string {
	out := r.Status.Words()
	switch d := r.Decision; {
	case d == nil && r.Handover != nil:
		out = r.Handover.Note
	case d == nil:
	case d.Expired:
		out += " at its deadline"
	case d.By != "":
		out += " by " + d.By
	}
	return out
}

func (s *Service) answerPermission(ctx context.Context, id string, a Answer) (Wait, string, error) {
	for _, p := range s.perms.List() {
		if PermissionID(p.Stream, p.ID) != id {
			continue
		}
		w := permissionWait(p, s.who(ctx)(p.SessionID))
		if !p.Open() {
			return w, "", &EndedError{ID: id, Outcome: permissionWords(p.ResolvedBy, p.Outcome, p.Answered)}
		}
		label := ""
		for _, o := range w.Actions {
			if o.ID == a.Action {
				label = o.Label
			}
		}
		if label == "" {
			return Wait{}, "", errs.Errorf(errs.Invalid, "action %q is not one of the options the agent offered", a.Action)
		}
		err := s.perms.Answer(p.Stream, p.ID, acp.PermissionOutcome{Outcome: "selected", OptionID: a.Action}, a.By)
		if errs.KindOf(err) == errs.Conflict {
			return w, "", &EndedError{ID: id, Outcome: "answered elsewhere first"}
		}
		if err != nil {
			return Wait{}, "", err
		}
		return w, "selected " + label, nil
	}
	return Wait{}, "", errs.Errorf(errs.NotFound, "no permission request waits as %q", id)
}

// permissionWords says how a relayed request ended.
func permissionWords(by string, o *acp.PermissionOutcome, answered bool) string {
	if by == "" && answered {
		return "answered on the dashboard"
	}
	out := "resolved by the " + by
	if o != nil {
		out += ": " + o.Outcome
		if o.OptionID != "" {
			out += " " + o.OptionID
		}
	}
	return out
}

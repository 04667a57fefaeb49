package waits

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/errs"
)

// Bounds of a question as plandash keeps it: an agent's input is cut to these, so what is
// stored and shown stays bounded whatever the agent sends.
const (
	MaxQuestions     = 8
	MaxOptions       = 12
	MaxQuestionBytes = 2 << 10
	MaxLabelBytes    = 256
	MaxMessageBytes  = 16 << 10 // a waiting session's last message
)

// ActionText is the action of a free-text answer to a one-question wait.
const ActionText = "text"

// QuestionID is the wait id of an agent's question, from an id the agent gave it (a tool call
// id, a request id) and its session: the same question asked again keeps its id.
func QuestionID(sessionID, agentID string) string {
	return prefixQuestion + PermissionID(sessionID, []byte(agentID))[len(prefixPermission):]
}

// InputID is the wait id of a session waiting for its next prompt: one per session.
func InputID(sessionID string) string {
	return prefixInput + PermissionID(sessionID, nil)[len(prefixPermission):]
}

// Bound cuts questions to the bounds above.
func Bound(qs []Question) []Question {
	out := make([]Question, 0, min(len(qs), MaxQuestions))
	seen := map[string]bool{}
	for _, q := range qs {
		if len(out) == MaxQuestions {
			break
		}
		q.Question, q.Header = cut(q.Question, MaxQuestionBytes), cut(q.Header, MaxLabelBytes)
		q.Options = slices.Clone(q.Options[:min(len(q.Options), MaxOptions)])
		for j := range q.Options {
			q.Options[j].Label = cut(q.Options[j].Label, MaxLabelBytes)
			q.Options[j].Description = cut(q.Options[j].Description, MaxQuestionBytes)
		}
		if seen[q.Question] {
			continue // answers are keyed by the question's text: a repeat cannot be told apart
		}
		seen[q.Question] = true
		out = append(out, q)
	}
	return out
}

// cut shortens s to at most n bytes on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Cut shortens s to at most n bytes on a character boundary.
func Cut(s string, n int) string { return cut(s, n) }

// QuestionsText is questions as plain text, for a notification or a terminal.
func QuestionsText(qs []Question) string {
	var b strings.Builder
	for i, q := range qs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(q.Question)
		b.WriteString("\n")
		for j, o := range q.Options {
			fmt.Fprintf(&b, "  %d. %s", j+1, o.Label)
			if o.Description != "" {
				b.WriteString(" — " + o.Description)
			}
			b.WriteString("\n")
		}
		if q.Multi {
			b.WriteString("  (several may be chosen)\n")
		}
	}
	return b.String()
}

// Wait is the record as the list shows it.
func (r Record) Wait(who Who) Wait {
	if who.SessionID == "" {
		who.SessionID = r.SessionID
	}
	w := fill(Wait{ID: r.ID, Kind: r.Kind, Title: r.Title, Since: r.Since, Deadline: r.Deadline, Then: r.Then,
		Answerable: r.Answerable, URL: "/waits/" + url.PathEscape(r.ID)}, who)
	if w.Agent == "" {
		w.Agent = r.Agent
	}
	if w.AgentName == "" {
		w.AgentName = r.AgentName
	}
	if r.Kind == KindInput {
		w.URL = "/sessions/" + url.PathEscape(r.SessionID)
	}
	w.Detail, w.Fits = fitDetail(r.Text)
	// One question with single choices is answered in one tap; several, or a multiple choice,
	// need the page's form.
	if len(r.Questions) == 1 && !r.Questions[0].Multi {
		for i, o := range r.Questions[0].Options {
			w.Actions = append(w.Actions, Action{ID: "opt-" + strconv.Itoa(i), Label: o.Label})
		}
	}
	return finish(w)
}

// resolve turns an answer into the answers by question text, checked against the questions.
func (r Record) resolve(a Answer) (map[string][]string, error) {
	if len(r.Questions) == 0 {
		return nil, errs.Errorf(errs.Invalid, "the wait has no question to answer")
	}
	if a.Action != "" {
		if len(r.Questions) != 1 {
			return nil, errs.Errorf(errs.Invalid, "the wait asks %d questions: answer them with answers, by question", len(r.Questions))
		}
		q := r.Questions[0]
		switch {
		case a.Action == ActionText:
			a.Answers = map[string][]string{q.Question: {a.Text}}
		case strings.HasPrefix(a.Action, "opt-"):
			i, err := strconv.Atoi(strings.TrimPrefix(a.Action, "opt-"))
			if err != nil || i < 0 || i >= len(q.Options) {
				return nil, errs.Errorf(errs.Invalid, "action %q is not one of the question's %d options", a.Action, len(q.Options))
			}
			a.Answers = map[string][]string{q.Question: {q.Options[i].Label}}
		default:
			return nil, errs.Errorf(errs.Invalid, "action must be opt-N or text for a question, not %q", a.Action)
		}
	}
	out := make(map[string][]string, len(r.Questions))
	for _, q := range r.Questions {
		got := a.Answers[q.Question]
		var kept []string
		for _, v := range got {
			if v = strings.TrimSpace(v); v != "" {
				kept = append(kept, v)
			}
		}
		switch {
		case len(kept) == 0:
			return nil, errs.Errorf(errs.Invalid, "the question %q has no answer", cut(q.Question, 80))
		case len(kept) > 1 && !q.Multi:
			return nil, errs.Errorf(errs.Invalid, "the question %q takes one answer, not %d", cut(q.Question, 80), len(kept))
		}
		for _, v := range kept {
			if len(v) > MaxAnswerText {
				return nil, errs.Errorf(errs.TooLarge, "an answer to %q is over %d bytes", cut(q.Question, 80), MaxAnswerText)
			}
			if !q.FreeText && !slices.ContainsFunc(q.Options, func(o Option) bool { return o.Label == v }) {
				return nil, errs.Errorf(errs.Invalid, "%q is not one of the options of %q", cut(v, 80), cut(q.Question, 80))
			}
		}
		out[q.Question] = kept
	}
	for k := range a.Answers {
		if _, ok := out[k]; !ok {
			return nil, errs.Errorf(errs.Invalid, "%q is not one of the questions asked", cut(k, 80))
		}
	}
	return out, nil
}

// answerWords says the answers in one line, in the questions' order.
func answerWords(answers map[string][]string, qs []Question) string {
	parts := make([]string, 0, len(qs))
	for _, q := range qs {
		parts = append(parts, strings.Join(answers[q.Question], ", "))
	}
	return line(strings.Join(parts, "; "))
}

package droid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/waits"
)

// IsQuestionEvent reports whether ev is Droid about to ask the person (AskUser): its
// PreToolUse hook runs before the dialog, and a deny's reason reaches the model as the call's
// result without the dialog showing, so plandash can answer it.
func IsQuestionEvent(ev Event) bool {
	return ev.HookEventName == EventPreToolUse && ev.ToolName == ToolAskUser
}

// Questions reads AskUser's questionnaire, Droid's plain-text form:
//
//  1. [question] Which library should we use? (multi)
//     [topic] Library
//     [option] Library ABC
//     [option] Library XYZ
//
// "(multi)" at the end of the question allows several options. Droid always offers a free-text
// answer besides the options. Lines of other shapes are skipped; what is kept is bounded
// (waits.Bound). A questionnaire with no question is an error.
func Questions(input json.RawMessage) ([]waits.Question, error) {
	text := inputString(input, "questionnaire")
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("AskUser input has no questionnaire")
	}
	var out []waits.Question
	seen := map[string]bool{}
	var cur *waits.Question
	flush := func() {
		if cur != nil && !seen[cur.Question] && len(out) < waits.MaxQuestions {
			seen[cur.Question] = true // answers are keyed by text: a repeat cannot be told apart
			out = append(out, waits.Bound([]waits.Question{*cur})[0])
		}
		cur = nil
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if i := strings.IndexAny(line, ".)"); i > 0 && i <= 4 && isDigits(line[:i]) {
			line = strings.TrimSpace(line[i+1:])
		}
		tag, rest, ok := strings.Cut(line, "]")
		if !ok || !strings.HasPrefix(tag, "[") {
			continue
		}
		rest = strings.TrimSpace(rest)
		switch strings.ToLower(strings.TrimPrefix(tag, "[")) {
		case "question":
			flush()
			q := waits.Question{FreeText: true}
			if t, ok := strings.CutSuffix(rest, "(multi)"); ok {
				q.Multi, rest = true, strings.TrimSpace(t)
			}
			if rest == "" {
				continue
			}
			q.Question = rest
			cur = &q
		case "topic":
			if cur != nil {
				cur.Header = rest
			}
		case "option":
			if cur != nil && rest != "" && len(cur.Options) < waits.MaxOptions {
				cur.Options = append(cur.Options, waits.Option{Label: rest})
			}
		}
	}
	flush()
	if len(out) == 0 {
		return nil, errors.New("AskUser's questionnaire holds no [question] line")
	}
	return out, nil
}

// answerPrefix starts the reason of the deny that carries the person's answers.
const answerPrefix = "The user answered these questions in plandash; this is their answer, not an error, so do not ask again:\n"

// QuestionAnswer is the PreToolUse hook's output answering AskUser with answers (by question
// text): a deny whose reason lists each question and its answer (several choices joined by
// ", "). Droid has no way for a hook to answer the call as its dialog does, but it hands the
// model the reason as the call's result and shows no dialog. No answers is an empty output: the
// dialog asks.
func QuestionAnswer(qs []waits.Question, answers map[string][]string) []byte {
	if len(answers) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(answerPrefix)
	for i, q := range qs {
		if a, ok := answers[q.Question]; ok {
			fmt.Fprintf(&b, "%d. %s → %s\n", i+1, q.Question, strings.Join(a, ", "))
		}
	}
	out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": EventPreToolUse,
		"permissionDecision": "deny", "permissionDecisionReason": strings.TrimRight(b.String(), "\n")}})
	if err != nil {
		return nil
	}
	return out
}

// CheckQuestionAnswer reports whether b is output the hook may print for a question: empty, or
// a deny carrying answers, of the shape QuestionAnswer makes.
func CheckQuestionAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Out *struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	switch {
	case v.Out == nil:
		return errors.New("the answer has no hookSpecificOutput")
	case v.Out.Decision != "deny":
		return fmt.Errorf("the answer's permissionDecision %q is not deny", v.Out.Decision)
	case !strings.HasPrefix(v.Out.Reason, answerPrefix):
		return errors.New("the answer's reason does not carry the person's answers")
	}
	return nil
}

package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/waits"
)

// IsQuestionEvent reports whether ev is Qwen Code about to ask the person (ask_user_question):
// its PermissionRequest hook runs before the dialog, and a deny's message reaches the model as
// the call's result without the dialog showing, so plandash can answer it.
func IsQuestionEvent(ev Event) bool {
	return ev.HookEventName == EventPermissionRequest && ev.ToolName == ToolAskUserQuestion
}

// Questions reads ask_user_question's arguments, {questions:[{question, header, options:[{label,
// description}], multiSelect}]} (packages/core/src/tools/askUserQuestion.ts), in order. A
// question without text ends the list there; what is kept is bounded (waits.Bound). Qwen Code
// adds "Other" to every question, so each takes free text too.
func Questions(input json.RawMessage) ([]waits.Question, error) {
	var in struct {
		Questions []json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("ask_user_question arguments are not an object with questions: %w", err)
	}
	var out []waits.Question
	seen := map[string]bool{}
	for _, raw := range in.Questions[:min(len(in.Questions), waits.MaxQuestions)] {
		var q struct {
			Question string            `json:"question"`
			Header   string            `json:"header"`
			Options  []json.RawMessage `json:"options"`
			Multi    bool              `json:"multiSelect"`
		}
		if json.Unmarshal(raw, &q) != nil || strings.TrimSpace(q.Question) == "" {
			break
		}
		wq := waits.Question{Question: q.Question, Header: q.Header, FreeText: true, Multi: q.Multi}
		for _, o := range q.Options[:min(len(q.Options), waits.MaxOptions)] {
			var opt waits.Option
			if json.Unmarshal(o, &opt) == nil && opt.Label != "" {
				wq.Options = append(wq.Options, opt)
			}
		}
		wq = waits.Bound([]waits.Question{wq})[0]
		if seen[wq.Question] {
			break // answers are keyed by text here: a repeat cannot be told apart
		}
		seen[wq.Question] = true
		out = append(out, wq)
	}
	if len(out) == 0 {
		return nil, errors.New("ask_user_question holds no question")
	}
	return out, nil
}

// answerPrefix starts the message of the deny that carries the person's answers.
const answerPrefix = "The user answered these questions in plandash; this is their answer, not an error, so do not ask again.\n\n"

// QuestionAnswer is the PermissionRequest hook's output answering ask_user_question with
// answers (by question text): a deny whose message carries the answers in the shape the tool
// itself returns ("**<header>**: <answer>", several choices joined by ", "). Qwen Code has no
// way for a hook to answer the call as its dialog does (an allow is ignored for it), but it
// hands the model the deny's message as the call's result and shows no dialog. No answers is
// an empty output: the dialog asks.
func QuestionAnswer(qs []waits.Question, answers map[string][]string) []byte {
	if len(answers) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(answerPrefix)
	for i, q := range qs {
		a, ok := answers[q.Question]
		if !ok {
			continue
		}
		label := q.Header
		if label == "" {
			label = fmt.Sprintf("Question %d", i+1)
		}
		fmt.Fprintf(&b, "**%s**: %s\n", label, strings.Join(a, ", "))
	}
	return deny(strings.TrimRight(b.String(), "\n"))
}

// CheckQuestionAnswer reports whether b is output the hook may print for a question: empty, or
// a deny carrying answers, of the shape QuestionAnswer makes.
func CheckQuestionAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	msg, err := denyMessage(b)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(msg, answerPrefix) {
		return errors.New("the answer's message does not carry the person's answers")
	}
	return nil
}

// ResponseAnswers reads ask_user_question's result as PostToolUse reports it
// (tool_response.llmContent, "User has provided the following answers:\n\n…") as one line, or
// "" when it is not of that shape (a declined dialog, a blocked call).
func ResponseAnswers(resp json.RawMessage) string {
	var r struct {
		LLMContent string `json:"llmContent"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return ""
	}
	rest, ok := strings.CutPrefix(r.LLMContent, "User has provided the following answers:")
	if !ok {
		return ""
	}
	return waits.Cut(strings.Join(strings.Fields(rest), " "), waits.MaxLabelBytes)
}

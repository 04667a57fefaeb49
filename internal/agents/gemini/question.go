package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/waits"
)

// ToolAskUser is Gemini CLI's question tool: {questions:[{question, header, type:
// "choice"|"text"|"yesno", options:[{label, description}], multiSelect, placeholder}]}, answered
// {"answers":{"<index>":"<answer>"}} (packages/core/src/tools/ask-user.ts). It runs only in the
// interactive CLI, which shows a dialog for it.
const ToolAskUser = "ask_user"

// IsQuestionEvent reports whether ev is Gemini CLI about to ask the person (ask_user): its
// BeforeTool hook runs before the dialog, and a deny's reason reaches the model as the call's
// result without the dialog showing, so plandash can answer it.
func IsQuestionEvent(ev Event) bool {
	return ev.HookEventName == EventBeforeTool && ev.ToolName == ToolAskUser
}

// Questions reads ask_user's arguments, in order (the answers are keyed by position). A
// question without text ends the list there, since the positions after it would no longer
// match; what is kept is bounded (waits.Bound). A choice or yes/no question also takes free
// text (Gemini adds "Other" / "Enter a custom value"); a text question takes only free text.
func Questions(input json.RawMessage) ([]waits.Question, error) {
	var in struct {
		Questions []json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("ask_user arguments are not an object with questions: %w", err)
	}
	var out []waits.Question
	seen := map[string]bool{}
	for _, raw := range in.Questions[:min(len(in.Questions), waits.MaxQuestions)] {
		var q struct {
			Question string            `json:"question"`
			Header   string            `json:"header"`
			Type     string            `json:"type"`
			Options  []json.RawMessage `json:"options"`
			Multi    bool              `json:"multiSelect"`
		}
		if json.Unmarshal(raw, &q) != nil || strings.TrimSpace(q.Question) == "" {
			break
		}
		wq := waits.Question{Question: q.Question, Header: q.Header, FreeText: true}
		switch q.Type {
		case "yesno":
			wq.Options = []waits.Option{{Label: "Yes"}, {Label: "No"}}
		case "text":
		default: // "choice", the default
			wq.Multi = q.Multi
			for _, o := range q.Options[:min(len(q.Options), waits.MaxOptions)] {
				var opt waits.Option
				if json.Unmarshal(o, &opt) == nil && opt.Label != "" {
					wq.Options = append(wq.Options, opt)
				}
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
		return nil, errors.New("ask_user holds no question")
	}
	return out, nil
}

// answerPrefix starts the reason of the deny that carries the person's answers; Gemini CLI
// hands the model "Tool execution blocked: <reason>".
const answerPrefix = "The user answered these questions in plandash; this is their answer, not an error, so do not ask again: "

// QuestionAnswer is the BeforeTool hook's output answering ask_user with answers (by question
// text): a deny whose reason carries the answers in the shape ask_user itself returns,
// {"answers":{"<index>":"<answer>"}} (several choices joined by ", "). Gemini CLI has no way for
// a hook to answer the call as its dialog does, but it gives the model the reason as the call's
// result and shows no dialog (verified with 0.61.0). No answers is an empty output: the dialog
// asks.
func QuestionAnswer(qs []waits.Question, answers map[string][]string) []byte {
	if len(answers) == 0 {
		return nil
	}
	byIndex := map[string]string{}
	for i, q := range qs {
		if a, ok := answers[q.Question]; ok {
			byIndex[strconv.Itoa(i)] = strings.Join(a, ", ")
		}
	}
	a, err := json.Marshal(map[string]any{"answers": byIndex})
	if err != nil {
		return nil
	}
	b, err := json.Marshal(map[string]string{"decision": "deny", "reason": answerPrefix + string(a)})
	if err != nil {
		return nil
	}
	return b
}

// CheckQuestionAnswer reports whether b is output the hook may print for a question: empty, or
// a deny carrying answers, of the shape QuestionAnswer makes.
func CheckQuestionAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	if v.Decision != "deny" {
		return fmt.Errorf("the answer's decision %q is not deny", v.Decision)
	}
	if !strings.HasPrefix(v.Reason, answerPrefix) {
		return errors.New("the answer's reason does not carry the person's answers")
	}
	return nil
}

// ResponseAnswers reads ask_user's result as AfterTool reports it (tool_response.llmContent,
// {"answers":{"<index>":"<answer>"}}) as one line in the questions' order, or "" when it is not
// of that shape (a dismissed dialog, a blocked call).
func ResponseAnswers(resp json.RawMessage) string {
	var r struct {
		LLMContent string `json:"llmContent"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return ""
	}
	var v struct {
		Answers map[string]string `json:"answers"`
	}
	if json.Unmarshal([]byte(r.LLMContent), &v) != nil || len(v.Answers) == 0 {
		return ""
	}
	keys := make([]string, 0, len(v.Answers))
	for k := range v.Answers {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, ea := strconv.Atoi(keys[i])
		b, eb := strconv.Atoi(keys[j])
		if ea != nil || eb != nil {
			return keys[i] < keys[j]
		}
		return a < b
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, v.Answers[k])
	}
	return waits.Cut(strings.Join(parts, "; "), waits.MaxLabelBytes)
}

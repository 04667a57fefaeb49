package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/plandash/plandash/internal/waits"
)

// Hook events besides Stop that plandash listens to (codex-rs/hooks schema).
const (
	EventPreToolUse       = "PreToolUse"
	EventPostToolUse      = "PostToolUse"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventSessionStart     = "SessionStart"
)

// ToolRequestUserInput is Codex's question tool: {questions:[{id, header, question, options:
// [{label, description}], isOther, isSecret}]}, answered {"answers":{<id>:{"answers":[…]}}}
// (codex-rs/protocol/src/request_user_input.rs). Codex 0.169.0 offers it in Plan mode, or in
// Default mode with [features] default_mode_request_user_input; `codex exec` refuses it.
const ToolRequestUserInput = "request_user_input"

// IsQuestionEvent reports whether ev is Codex about to ask the person (request_user_input): its
// PreToolUse hook runs before the picker shows, and a deny's reason reaches the model as the
// call's output, so plandash can answer it.
func IsQuestionEvent(ev HookEvent) bool {
	return ev.HookEventName == EventPreToolUse && ev.ToolName == ToolRequestUserInput
}

// Question is one request_user_input question: the wait's question and Codex's id for it,
// which keys the answers.
type Question struct {
	ID string
	waits.Question
}

// Questions reads request_user_input's arguments. Members of the wrong type are skipped, what is
// kept is bounded (waits.Bound), and every question takes free text, as Codex's picker always
// offers "None of the above" with notes (it sets isOther on every question).
func Questions(input json.RawMessage) ([]Question, error) {
	var in struct {
		Questions []json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("request_user_input arguments are not an object with questions: %w", err)
	}
	ids := map[string]string{} // question text → id
	var qs []waits.Question
	for _, raw := range in.Questions[:min(len(in.Questions), waits.MaxQuestions)] {
		var q struct {
			ID       string            `json:"id"`
			Header   string            `json:"header"`
			Question string            `json:"question"`
			Options  []json.RawMessage `json:"options"`
		}
		if json.Unmarshal(raw, &q) != nil || strings.TrimSpace(q.Question) == "" || strings.TrimSpace(q.ID) == "" {
			continue
		}
		wq := waits.Question{Question: q.Question, Header: q.Header, FreeText: true}
		for _, o := range q.Options[:min(len(q.Options), waits.MaxOptions)] {
			var opt waits.Option
			if json.Unmarshal(o, &opt) == nil && opt.Label != "" {
				wq.Options = append(wq.Options, opt)
			}
		}
		bq := waits.Bound([]waits.Question{wq})[0]
		if _, dup := ids[bq.Question]; dup {
			continue
		}
		ids[bq.Question] = waits.Cut(q.ID, waits.MaxLabelBytes)
		qs = append(qs, bq)
	}
	if len(qs) == 0 {
		return nil, errors.New("request_user_input holds no question with an id")
	}
	out := make([]Question, len(qs))
	for i, q := range qs {
		out[i] = Question{ID: ids[q.Question], Question: q}
	}
	return out, nil
}

// waitQuestions is qs as the wait keeps them.
func waitQuestions(qs []Question) []waits.Question {
	out := make([]waits.Question, len(qs))
	for i, q := range qs {
		out[i] = q.Question
	}
	return out
}

// answerPrefix starts the reason of the deny that carries the person's answers; Codex shows the
// model "Tool call blocked by PreToolUse hook: <reason>".
const answerPrefix = "The user answered these questions in plandash; this is their answer, not an error, so do not ask again: "

// QuestionAnswer is the PreToolUse hook's output answering request_user_input with answers (by
// question text): a deny whose reason carries the answers in the shape Codex itself returns,
// {"answers":{<id>:{"answers":[…]}}}. Codex has no way for a hook to answer the call as if the
// picker had, but it hands the reason to the model as the call's output (verified with 0.169.0),
// and does not show its picker. No answers is an empty output: the terminal asks.
func QuestionAnswer(qs []Question, answers map[string][]string) []byte {
	if len(answers) == 0 {
		return nil
	}
	type answer struct {
		Answers []string `json:"answers"`
	}
	byID := map[string]answer{}
	for _, q := range qs {
		if a, ok := answers[q.Question.Question]; ok {
			byID[q.ID] = answer{Answers: a}
		}
	}
	a, err := json.Marshal(map[string]any{"answers": byID})
	if err != nil {
		return nil
	}
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": EventPreToolUse, "permissionDecision": "deny",
		"permissionDecisionReason": answerPrefix + string(a)}})
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
		Out *struct {
			Event    string `json:"hookEventName"`
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
	case v.Out.Event != EventPreToolUse:
		return fmt.Errorf("the answer is for %q, not PreToolUse", v.Out.Event)
	case v.Out.Decision != "deny":
		return fmt.Errorf("the answer's permissionDecision %q is not deny", v.Out.Decision)
	case !strings.HasPrefix(v.Out.Reason, answerPrefix):
		return errors.New("the answer's reason does not carry the person's answers")
	}
	return nil
}

// ResponseAnswers reads request_user_input's output as Codex records it (PostToolUse's
// tool_response, the rollout's function_call_output): {"answers":{<id>:{"answers":[…]}}}, as
// one line "id: a, b; id2: c", or "" when it is not of that shape.
func ResponseAnswers(resp json.RawMessage) string {
	var s string
	if json.Unmarshal(resp, &s) == nil {
		resp = json.RawMessage(s)
	}
	var v struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if json.Unmarshal(resp, &v) != nil || len(v.Answers) == 0 {
		return ""
	}
	ids := make([]string, 0, len(v.Answers))
	for id := range v.Answers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, strings.Join(v.Answers[id].Answers, ", "))
	}
	return waits.Cut(strings.Join(parts, "; "), waits.MaxLabelBytes)
}

package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agents/settingsfile"
	"github.com/plandash/plandash/internal/waits"
)

// IsQuestionEvent reports whether ev is Claude Code asking the person (AskUserQuestion) before
// the tool runs: a PreToolUse hook that waits may answer it (shared/spec/agents.md §1.5).
func IsQuestionEvent(ev Event) bool {
	return ev.HookEventName == EventPreToolUse && ev.ToolName == ToolAskUserQuestion
}

// Waits reports whether the hook for ev waits for plandash's answer (a plan at the gate, a
// question), rather than posting and going on.
func Waits(ev Event) bool { return IsGateEvent(ev) || IsQuestionEvent(ev) }

// Questions reads AskUserQuestion's tool_input.questions: [{question, header, options:
// [{label, description}], multiSelect}]. Members of the wrong type are skipped, and what is kept
// is bounded (waits.Bound). Claude Code's dialog always offers the person's own words ("Other"),
// so every question takes free text.
func Questions(input json.RawMessage) ([]waits.Question, error) {
	var in struct {
		Questions []json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("tool_input is not an object with questions: %w", err)
	}
	var out []waits.Question
	for _, raw := range in.Questions[:min(len(in.Questions), waits.MaxQuestions)] {
		var q struct {
			Question string            `json:"question"`
			Header   string            `json:"header"`
			Options  []json.RawMessage `json:"options"`
			Multi    bool              `json:"multiSelect"`
		}
		if json.Unmarshal(raw, &q) != nil || strings.TrimSpace(q.Question) == "" {
			continue
		}
		wq := waits.Question{Question: q.Question, Header: q.Header, Multi: q.Multi, FreeText: true}
		for _, o := range q.Options[:min(len(q.Options), waits.MaxOptions)] {
			var opt waits.Option
			if json.Unmarshal(o, &opt) == nil && opt.Label != "" {
				wq.Options = append(wq.Options, opt)
			}
		}
		out = append(out, wq)
	}
	out = waits.Bound(out)
	if len(out) == 0 {
		return nil, errors.New("tool_input.questions holds no question")
	}
	return out, nil
}

// QuestionAnswer is the PreToolUse hook's output answering AskUserQuestion: allow, with
// updatedInput the tool_input as sent plus answers by question text (several labels of a
// multiple choice joined by ", "), which Claude Code hands to the model as the person's answers
// instead of showing its dialog. No answers is an empty output: the terminal asks.
func QuestionAnswer(input json.RawMessage, answers map[string][]string) []byte {
	if len(answers) == 0 {
		return nil
	}
	o, err := settingsfile.ParseObject(input)
	if err != nil {
		return nil
	}
	flat := make(map[string]string, len(answers))
	for q, vs := range answers {
		flat[q] = strings.Join(vs, ", ")
	}
	a, err := json.Marshal(flat)
	if err != nil {
		return nil
	}
	o.Set("answers", a)
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": EventPreToolUse, "permissionDecision": "allow", "updatedInput": o.Marshal()}})
	if err != nil {
		return nil
	}
	return b
}

// CheckQuestionAnswer reports whether b is output the hook may print for a question: empty, or
// an allow of the shape QuestionAnswer makes.
func CheckQuestionAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Out *struct {
			Event    string `json:"hookEventName"`
			Decision string `json:"permissionDecision"`
			Input    *struct {
				Questions json.RawMessage   `json:"questions"`
				Answers   map[string]string `json:"answers"`
			} `json:"updatedInput"`
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
	case v.Out.Decision != "allow":
		return fmt.Errorf("the answer's permissionDecision %q is not allow", v.Out.Decision)
	case v.Out.Input == nil || len(v.Out.Input.Answers) == 0 || len(v.Out.Input.Questions) == 0:
		return errors.New("an answer needs updatedInput with the questions and their answers, or Claude Code shows its dialog")
	}
	return nil
}

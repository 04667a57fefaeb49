package crush

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plandash/plandash/internal/waits"
)

// IsQuestionEvent reports whether ev is Crush about to ask the person (the question tool): its
// PreToolUse hook runs before the dialog, and a deny's reason reaches the model as the call's
// result ("Tool call blocked by hook. Reason: …") without the dialog showing, so plandash can
// answer it. The tool runs only in the interactive TUI.
func IsQuestionEvent(ev Event) bool {
	return strings.EqualFold(ev.Event, EventPreToolUse) && ev.ToolName == ToolQuestion
}

// Questions reads the question tool's input, in order and bounded (waits.Bound). It takes the
// questions array also when a model sent it as a JSON string, as Crush does. A yes_no question
// offers Yes and No; a choice question its choices (or options) and free text, as Crush adds a
// fill-in; free_text only free text.
func Questions(input json.RawMessage) ([]waits.Question, error) {
	var in struct {
		Questions json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("question arguments are not an object with questions: %w", err)
	}
	var items []json.RawMessage
	if json.Unmarshal(in.Questions, &items) != nil {
		var s string
		if json.Unmarshal(in.Questions, &s) != nil || json.Unmarshal([]byte(strings.TrimSpace(s)), &items) != nil {
			return nil, errors.New("question arguments hold no questions array")
		}
	}
	var out []waits.Question
	seen := map[string]bool{}
	for _, raw := range items[:min(len(items), waits.MaxQuestions)] {
		var q struct {
			Label    string `json:"label"`
			Type     string `json:"type"`
			Question string `json:"question"`
			Choices  []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"choices"`
			Options []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"options"`
		}
		if json.Unmarshal(raw, &q) != nil || strings.TrimSpace(q.Question) == "" {
			break
		}
		wq := waits.Question{Question: q.Question, Header: q.Label}
		switch q.Type {
		case "yes_no":
			wq.Options = []waits.Option{{Label: "Yes"}, {Label: "No"}}
		case "free_text":
			wq.FreeText = true
		default: // single_choice, multi_choice
			wq.FreeText, wq.Multi = true, q.Type == "multi_choice"
			choices := q.Choices
			if len(choices) == 0 {
				choices = q.Options
			}
			for _, c := range choices[:min(len(choices), waits.MaxOptions)] {
				if c.Label != "" {
					wq.Options = append(wq.Options, waits.Option{Label: c.Label, Description: c.Description})
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
		return nil, errors.New("the question call holds no question")
	}
	return out, nil
}

// answerPrefix starts the reason of the deny that carries the person's answers; Crush hands the
// model "Tool call blocked by hook. Reason: <reason>".
const answerPrefix = "The user answered these questions in plandash; this is their answer, not an error, so do not ask again.\n\n"

// QuestionAnswer is the hook's output answering the question call with answers (by question
// text): a deny whose reason carries them in the words Crush's own tool result uses ("Q1: …",
// "User answered: yes", "User selected: […]", "User provided: …"). Crush has no way for a hook
// to answer the call as its dialog does, but it gives the model the reason as the call's result
// and shows no dialog (verified with Crush v0.90.0). No answers is an empty output: the dialog
// asks.
func QuestionAnswer(qs []waits.Question, answers map[string][]string) []byte {
	if len(answers) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(answerPrefix)
	for i, q := range qs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "Q%d: %s\n", i+1, q.Question)
		a, ok := answers[q.Question]
		if !ok || len(a) == 0 {
			b.WriteString("User skipped this question")
			continue
		}
		if len(q.Options) == 2 && q.Options[0].Label == "Yes" && q.Options[1].Label == "No" && len(a) == 1 && (a[0] == "Yes" || a[0] == "No") {
			b.WriteString("User answered: " + strings.ToLower(a[0]))
			continue
		}
		var picked, typed []string
		for _, s := range a {
			if slices.ContainsFunc(q.Options, func(o waits.Option) bool { return o.Label == s }) {
				picked = append(picked, s)
			} else {
				typed = append(typed, s)
			}
		}
		var parts []string
		if len(picked) > 0 {
			j, _ := json.Marshal(picked)
			parts = append(parts, "User selected: "+string(j))
		}
		if len(typed) > 0 {
			parts = append(parts, "User provided: "+strings.Join(typed, "; "))
		}
		b.WriteString(strings.Join(parts, "\n"))
	}
	out, err := json.Marshal(map[string]string{"decision": "deny", "reason": b.String()})
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

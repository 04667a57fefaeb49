package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/waits"
)

// ToolAskUser is Copilot CLI's question tool: {question, choices?: [string]} (one question a
// call). It runs only in the interactive CLI, which shows a dialog for it.
const ToolAskUser = "ask_user"

// Asker keeps the waits plandash holds itself (waits.Asked): Copilot CLI's questions, and
// sessions waiting for their next prompt.
type Asker = waits.Asker

// defaultQuestionDeadline is how long a question waits for an answer in plandash before Copilot
// CLI's own dialog asks it: the preToolUse hook is awaited before the dialog shows.
const defaultQuestionDeadline = 10 * time.Minute

// IsQuestionEvent reports whether ev is Copilot CLI about to ask the person (ask_user): its
// preToolUse hook runs before the dialog, and a deny's reason reaches the model as the call's
// result ("Denied by preToolUse hook: …") without the dialog showing.
func IsQuestionEvent(ev Event) bool {
	return ev.HookEventName == EventPreToolUse && ev.ToolName == ToolAskUser
}

// Questions reads ask_user's arguments as the one question they hold, bounded (waits.Bound).
// Choices are offered as options; free text is always allowed, as Copilot's dialog allows it
// unless the call says allow_freeform false.
func Questions(args json.RawMessage) ([]waits.Question, error) {
	var in struct {
		Question      string   `json:"question"`
		Choices       []string `json:"choices"`
		AllowFreeform *bool    `json:"allow_freeform"`
	}
	if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.Question) == "" {
		return nil, errors.New("ask_user arguments hold no question")
	}
	q := waits.Question{Question: in.Question, FreeText: in.AllowFreeform == nil || *in.AllowFreeform}
	for _, c := range in.Choices[:min(len(in.Choices), waits.MaxOptions)] {
		if strings.TrimSpace(c) != "" {
			q.Options = append(q.Options, waits.Option{Label: c})
		}
	}
	if len(q.Options) == 0 {
		q.FreeText = true
	}
	return waits.Bound([]waits.Question{q}), nil
}

// answerPrefix starts the reason of the deny that carries the person's answer.
const answerPrefix = "The user answered this question in plandash; this is their answer, not an error, so do not ask again. Their answer: "

// QuestionAnswer is the preToolUse hook's output answering ask_user: a deny whose reason
// carries the answer (several choices joined by ", "). Copilot CLI has no way for a hook to
// answer the call as its dialog does, but it gives the model the reason as the call's result
// and shows no dialog (verified with 1.0.102). No answer is an empty output: the dialog asks.
func QuestionAnswer(qs []waits.Question, answers map[string][]string) []byte {
	if len(qs) == 0 || len(answers[qs[0].Question]) == 0 {
		return nil
	}
	b, err := json.Marshal(map[string]string{"permissionDecision": "deny",
		"permissionDecisionReason": answerPrefix + strings.Join(answers[qs[0].Question], ", ")})
	if err != nil {
		return nil
	}
	return b
}

// CheckQuestionAnswer reports whether b is output the hook may print for a question: empty, or
// a deny carrying an answer, of the shape QuestionAnswer makes.
func CheckQuestionAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Decision string `json:"permissionDecision"`
		Reason   string `json:"permissionDecisionReason"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	if v.Decision != "deny" || !strings.HasPrefix(v.Reason, answerPrefix) {
		return errors.New("the answer is not a deny carrying the person's answer")
	}
	return nil
}

// questionID is the wait id of an ask_user call: preToolUse carries no call id, so the id comes
// from the question; postToolUse of the same call finds the same id.
func questionID(key string, qs []waits.Question) string {
	return waits.QuestionID(key, ToolAskUser+"\x00"+waits.QuestionsText(qs))
}

// asking is how the Service keeps its waits (the kit's, in Copilot CLI's words).
func (s *Service) asking() agentkit.Asking {
	return agentkit.Asking{Asker: s.cfg.Asker, Log: s.cfg.Log, Agent: AgentName, Title: AgentTitle,
		Hook: "copilot hook", Deadline: s.cfg.QuestionDeadline}
}

// ask holds ask_user until the person answers it in plandash, and answers the hook with the
// answer. Nothing (Copilot's dialog asks) when the question cannot be read, when the wait ended
// otherwise, when the hook gave up, or when nobody answered by the deadline; the wait then stays
// listed as one to answer in the terminal, until postToolUse reports the answer or the session
// moves on.
func (s *Service) ask(ctx context.Context, ev Event) ([]byte, error) {
	qs, err := Questions(ev.ToolArgs)
	if err != nil {
		s.cfg.Log.Warn("copilot hook: a question plandash cannot show; the terminal asks", "err", err)
		return nil, nil
	}
	key := SessionKey(ev.SessionID)
	answers, ok, err := s.asking().Ask(ctx, key, questionID(key, qs), qs[0].Question, qs)
	if !ok {
		return nil, err
	}
	return QuestionAnswer(qs, answers), nil
}

// note keeps the session's waits in step with ev: a question answered in the terminal ends
// (postToolUse of ask_user); the turn's end (agentStop) lists the session as waiting for its
// next prompt, which ends when the person types or the agent works again; and questions still
// open when the session moves on end with it.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID)
	a := s.asking()
	switch ev.HookEventName {
	case EventPostToolUse:
		if ev.ToolName == ToolAskUser {
			if qs, err := Questions(ev.ToolArgs); err == nil {
				answer := ""
				if t := strings.TrimSpace(ev.ResultText); t != "" && ev.ResultType == "success" {
					answer = waits.Cut(t, waits.MaxLabelBytes)
				}
				a.Answered(ctx, questionID(key, qs), answer)
			}
		}
	case EventUserPrompt, EventSessionStart, EventPreToolUse:
		a.WentOn(ctx, key, ev.HookEventName != EventPreToolUse)
	case EventAgentStop:
		a.TurnEnded(ctx, key, "")
	case EventSessionEnd:
		a.SessionEnded(ctx, key)
	}
}

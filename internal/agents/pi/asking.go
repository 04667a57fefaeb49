package pi

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/waits"
)

// questionID is the wait id of an ask_user call.
func questionID(ev Event) string {
	return waits.QuestionID(SessionKey(ev.SessionID), ev.CallID)
}

// Question is ask_user's question as plandash keeps it, bounded; ok is false when it has no
// text or no call id to answer it by.
func Question(ev Event) (waits.Question, bool) {
	if strings.TrimSpace(ev.Question) == "" || ev.CallID == "" {
		return waits.Question{}, false
	}
	q := waits.Question{Question: ev.Question, FreeText: len(ev.Options) == 0}
	for _, o := range ev.Options[:min(len(ev.Options), waits.MaxOptions)] {
		if strings.TrimSpace(o) != "" {
			q.Options = append(q.Options, waits.Option{Label: o})
		}
	}
	qs := waits.Bound([]waits.Question{q})
	if len(qs) != 1 {
		return waits.Question{}, false
	}
	return qs[0], true
}

// ask holds ask_user until a person answers it in plandash, and answers with their answers.
// Nothing (the extension asks in Pi's terminal) when the question cannot be shown, when
// nobody answered by the deadline or when Pi stopped waiting; the wait then stays listed as
// one to answer in the terminal until the extension reports the answer or the turn ends.
func (s *Service) ask(ctx context.Context, ev Event) ([]byte, error) {
	q, ok := Question(ev)
	if !ok {
		return nil, nil
	}
	answers, ok, err := s.asking().Ask(ctx, SessionKey(ev.SessionID), questionID(ev), q.Question, []waits.Question{q})
	if !ok || len(answers[q.Question]) == 0 {
		return nil, err
	}
	return json.Marshal(Answer{Answers: answers[q.Question]})
}

// asking is how the Service keeps its waits (the kit's, in Pi's words).
func (s *Service) asking() agentkit.Asking {
	return agentkit.Asking{Asker: s.cfg.Asker, Log: s.cfg.Log, Agent: AgentName, Title: AgentTitle, Hook: "pi",
		Deadline: s.cfg.QuestionDeadline, Then: "Pi asks in its terminal"}
}

// note keeps the session's kept waits in step with ev: a question answered in the terminal
// ends; the turn's end lists the session as waiting for its next prompt with its last answer,
// which ends when a prompt begins; questions still open when the session moves on end with it.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID)
	a := s.asking()
	switch ev.Type {
	case EventAnswered:
		answer := ""
		if len(ev.Answers) > 0 {
			answer = waits.Cut(strings.Join(ev.Answers, ", "), 1024)
		}
		a.Answered(ctx, questionID(ev), answer)
	case EventPrompt, EventSessionStart:
		a.WentOn(ctx, key, false)
		a.CloseQuestions(ctx, key, "a new prompt began")
	case EventAgentEnd:
		a.TurnEnded(ctx, key, ev.Text)
	case EventSessionShutdown:
		a.SessionEnded(ctx, key)
	}
}

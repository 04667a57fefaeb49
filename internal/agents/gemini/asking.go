package gemini

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/waits"
)

// Asker keeps the waits plandash holds itself (waits.Asked): Gemini CLI's questions, and
// sessions waiting for the next prompt.
type Asker = waits.Asker

// defaultQuestionDeadline is how long a question waits for an answer in plandash before Gemini
// CLI's own dialog asks it. Gemini awaits the BeforeTool hook before it shows the dialog, so
// the terminal cannot answer meanwhile.
const defaultQuestionDeadline = 10 * time.Minute

// questionID is the wait id of an ask_user call. BeforeTool carries no call id, so the id
// comes from the questions; AfterTool of the same call finds the same id.
func questionID(key string, qs []waits.Question) string {
	return waits.QuestionID(key, ToolAskUser+"\x00"+waits.QuestionsText(qs))
}

// asking is how the Service keeps its waits (the kit's, in Gemini CLI's words).
func (s *Service) asking() agentkit.Asking {
	return agentkit.Asking{Asker: s.cfg.Asker, Log: s.cfg.Log, Agent: AgentName, Title: AgentTitle,
		Hook: "gemini hook", Deadline: s.cfg.QuestionDeadline}
}

// ask holds ask_user until the person answers it in plandash, and answers the hook with their
// answers. Nothing (Gemini's dialog asks) when the questions cannot be read, when the wait
// ended otherwise, when the hook gave up, or when nobody answered by the deadline; the wait then
// stays listed as one to answer in the terminal, until Gemini reports the answer (AfterTool) or
// the session moves on.
func (s *Service) ask(ctx context.Context, ev Event) ([]byte, error) {
	qs, err := Questions(ev.ToolInput)
	if err != nil {
		s.cfg.Log.Warn("gemini hook: a question plandash cannot show; the terminal asks", "err", err)
		return nil, nil
	}
	key := SessionKey(ev.SessionID)
	answers, ok, err := s.asking().Ask(ctx, key, questionID(key, qs), agentkit.QuestionTitle(qs), qs)
	if !ok {
		return nil, err
	}
	return QuestionAnswer(qs, answers), nil
}

// note keeps the session's kept waits in step with ev: a question answered in the terminal ends
// (AfterTool of ask_user); the turn's end (AfterAgent) lists the session as waiting for its next
// prompt with the last response, which ends when the person types or the agent works again; and
// questions still open when the session moves on end with it.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID)
	a := s.asking()
	switch ev.HookEventName {
	case EventAfterTool:
		if ev.ToolName == ToolAskUser {
			if qs, err := Questions(ev.ToolInput); err == nil {
				a.Answered(ctx, questionID(key, qs), ResponseAnswers(ev.ToolResponse))
			}
		}
	case EventBeforeAgent, EventSessionStart, EventBeforeTool:
		a.WentOn(ctx, key, ev.HookEventName != EventBeforeTool)
	case EventAfterAgent:
		a.TurnEnded(ctx, key, ev.PromptResponse)
	case EventSessionEnd:
		a.SessionEnded(ctx, key)
	}
}

package claude

import (
	"cmp"
	"context"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/waits"
)

// Asker keeps the waits plandash holds itself (waits.Asked): Claude Code's questions, and
// sessions waiting for the next prompt.
type Asker = waits.Asker

// defaultQuestionDeadline is how long a question waits for an answer in plandash before the
// terminal's own dialog asks it.
const defaultQuestionDeadline = 30 * time.Minute

// asking is how the Service keeps its waits (the kit's, in Claude Code's words). Claude Code
// never tells a hook how its own dialog was answered, so a question it takes over ends there.
func (s *Service) asking() agentkit.Asking {
	return agentkit.Asking{Asker: s.cfg.Asker, Log: s.cfg.Log, Agent: AgentName, Title: AgentTitle,
		Hook: "claude hook", Deadline: s.cfg.QuestionDeadline, Then: "the terminal asks", Untold: "the terminal asks"}
}

// ask holds AskUserQuestion until the person answers it in plandash, and answers the hook
// with their answers. Nothing (the terminal asks) when the questions cannot be read, when
// nobody answered by the deadline, or when the wait was ended otherwise.
func (s *Service) ask(ctx context.Context, ev Event) ([]byte, error) {
	qs, err := Questions(ev.ToolInput)
	if err != nil {
		s.cfg.Log.Warn("claude hook: a question plandash cannot show; the terminal asks", "err", err)
		return nil, nil
	}
	key := SessionKey(ev.SessionID)
	id := waits.QuestionID(key, cmp.Or(ev.ToolUseID, ev.PromptID, string(ev.ToolInput)))
	answers, ok, err := s.asking().Ask(ctx, key, id, agentkit.QuestionTitle(qs), qs)
	if !ok {
		return nil, err
	}
	return QuestionAnswer(ev.ToolInput, answers), nil
}

// noteInput keeps the session's "waiting for your next prompt" wait: it begins when a turn
// ends (Stop, with the last message) or Claude Code says it is idle (Notification idle_prompt),
// and ends at the session's next event of any other kind (the person typed).
func (s *Service) noteInput(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID)
	a := s.asking()
	switch ev.HookEventName {
	case EventStop:
		a.AwaitPrompt(ctx, key, ev.LastAssistantMessage)
	case EventNotification:
		// Other notifications (a permission prompt) are not the person typing.
		if ev.NotificationType == "idle_prompt" {
			if r, err := s.cfg.Asker.Get(ctx, waits.InputID(key)); err != nil || !r.Open() {
				a.AwaitPrompt(ctx, key, ev.Message)
			}
		}
	case EventSessionEnd:
		a.SessionEnded(ctx, key)
	case EventUserPromptSubmit, EventSessionStart, EventPreToolUse, EventPermissionRequest:
		// The person typed, or the agent works again. Events that report the end of earlier
		// work (PostToolUse, a task completed) may arrive after Stop, as async hooks, and say
		// nothing about the person.
		a.WentOn(ctx, key, ev.HookEventName == EventUserPromptSubmit || ev.HookEventName == EventSessionStart)
	}
}

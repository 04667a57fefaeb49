package claude

import (
	"cmp"
	"context"
	"time"

	"github.com/plandash/plandash/internal/waits"
)

// Asker keeps the waits plandash holds itself (waits.Asked): Claude Code's questions, and
// sessions waiting for the next prompt.
type Asker interface {
	Begin(ctx context.Context, r waits.Record) error
	Get(ctx context.Context, id string) (waits.Record, error)
	Wait(ctx context.Context, id string, limit time.Duration) (waits.Record, error)
	Close(ctx context.Context, id, by, outcome string) (bool, error)
	Now() time.Time
}

// defaultQuestionDeadline is how long a question waits for an answer in plandash before the
// terminal's own dialog asks it.
const defaultQuestionDeadline = 30 * time.Minute

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
	now := s.cfg.Asker.Now()
	title := qs[0].Question
	if len(qs) > 1 {
		title += " (and more)"
	}
	r := waits.Record{ID: waits.QuestionID(key, cmp.Or(ev.ToolUseID, ev.PromptID, string(ev.ToolInput))), Kind: waits.KindQuestion,
		SessionID: key, Agent: AgentName, AgentName: AgentTitle, Title: title, Text: waits.QuestionsText(qs), Questions: qs,
		Answerable: true, Since: now, Deadline: now.Add(s.cfg.QuestionDeadline), Then: "the terminal asks"}
	if err := s.cfg.Asker.Begin(ctx, r); err != nil {
		return nil, err
	}
	for {
		got, err := s.cfg.Asker.Wait(ctx, r.ID, max(r.Deadline.Sub(s.cfg.Asker.Now()), 0))
		switch {
		case ctx.Err() != nil:
			// Claude Code gave up on the hook (its timeout), or the person answered in the
			// terminal and the hook was stopped: the question is no longer plandash's.
			s.closeQuestion(ctx, r.ID, "the hook stopped waiting; the terminal asks")
			return nil, ctx.Err()
		case err != nil:
			return nil, err
		case !got.Open():
			return QuestionAnswer(ev.ToolInput, got.Answers), nil
		case !s.cfg.Asker.Now().Before(r.Deadline):
			s.closeQuestion(ctx, r.ID, "nobody answered in time; the terminal asks")
			return nil, nil
		}
	}
}

func (s *Service) closeQuestion(ctx context.Context, id, why string) {
	if _, err := s.cfg.Asker.Close(context.WithoutCancel(ctx), id, TerminalDecider, why); err != nil {
		s.cfg.Log.Warn("claude hook: close a question", "id", id, "err", err)
	}
}

// noteInput keeps the session's "waiting for your next prompt" wait: it begins when a turn
// ends (Stop, with the last message) or Claude Code says it is idle (Notification idle_prompt),
// and ends at the session's next event of any other kind (the person typed).
func (s *Service) noteInput(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID)
	id := waits.InputID(key)
	var err error
	switch {
	case ev.HookEventName == EventStop:
		err = s.beginInput(ctx, id, key, ev.LastAssistantMessage)
	case ev.HookEventName == EventNotification && ev.NotificationType == "idle_prompt":
		if r, gerr := s.cfg.Asker.Get(ctx, id); gerr != nil || !r.Open() {
			err = s.beginInput(ctx, id, key, ev.Message)
		}
	case ev.HookEventName == EventNotification:
		// Other notifications (a permission prompt) are not the person typing.
	case ev.HookEventName == EventSessionEnd:
		_, err = s.cfg.Asker.Close(ctx, id, TerminalDecider, "the session ended")
	default:
		_, err = s.cfg.Asker.Close(ctx, id, TerminalDecider, "the session went on")
	}
	if err != nil {
		s.cfg.Log.Warn("claude hook: keep the session's input wait", "session", key, "err", err)
	}
}

func (s *Service) beginInput(ctx context.Context, id, key, message string) error {
	return s.cfg.Asker.Begin(ctx, waits.Record{ID: id, Kind: waits.KindInput, SessionID: key, Agent: AgentName, AgentName: AgentTitle,
		Title: "Claude Code waits for your next prompt", Text: waits.Cut(message, waits.MaxMessageBytes), Since: s.cfg.Asker.Now()})
}

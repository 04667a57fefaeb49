package codex

import (
	"cmp"
	"context"
	"time"

	"github.com/plandash/plandash/internal/waits"
)

// Asker keeps the waits plandash holds itself (waits.Asked): Codex's questions, and sessions
// waiting for the next prompt.
type Asker = waits.Asker

// TerminalDecider is who a wait is recorded as ended by when it ended in Codex's terminal.
const TerminalDecider = "terminal"

// defaultQuestionDeadline is how long a question waits for an answer in plandash before Codex's
// own picker asks it. Codex awaits the PreToolUse hook before it draws the picker, so the
// terminal cannot answer meanwhile: the hold is shorter than a plan's.
const defaultQuestionDeadline = 10 * time.Minute

// ask holds request_user_input until the person answers it in plandash, and answers the hook
// with their answers. Nothing (Codex's picker asks) when the questions cannot be read, when the
// wait ended otherwise, or when nobody answered by the deadline; the wait then stays listed as
// one to answer in the terminal, until Codex records the answer (PostToolUse) or moves on.
func (s *Service) ask(ctx context.Context, ev HookEvent) ([]byte, error) {
	qs, err := Questions(ev.ToolInput)
	if err != nil {
		s.cfg.Log.Warn("codex hook: a question plandash cannot show; the terminal asks", "err", err)
		return nil, nil
	}
	wq := waitQuestions(qs)
	key := SessionKey(ev.SessionID)
	now := s.cfg.Asker.Now()
	title := wq[0].Question
	if len(wq) > 1 {
		title += " (and more)"
	}
	r := waits.Record{ID: questionID(key, ev), Kind: waits.KindQuestion, SessionID: key, Agent: AgentName, AgentName: AgentTitle,
		Title: title, Text: waits.QuestionsText(wq), Questions: wq, Answerable: true, Since: now,
		Deadline: now.Add(s.cfg.QuestionDeadline), Then: "Codex's picker asks in the terminal"}
	if err := s.cfg.Asker.Begin(ctx, r); err != nil {
		return nil, err
	}
	for {
		got, err := s.cfg.Asker.Wait(ctx, r.ID, max(r.Deadline.Sub(s.cfg.Asker.Now()), 0))
		switch {
		case ctx.Err() != nil:
			// Codex gave up on the hook (its timeout, or the person interrupted the turn).
			s.closeWait(ctx, r.ID, "the hook stopped waiting; Codex's terminal asks")
			return nil, ctx.Err()
		case err != nil:
			return nil, err
		case !got.Open():
			return QuestionAnswer(qs, got.Answers), nil
		case !s.cfg.Asker.Now().Before(r.Deadline):
			// Still waiting, now on the terminal's picker: listed, answered only there.
			r.Answerable, r.Deadline, r.Then = false, time.Time{}, ""
			if err := s.cfg.Asker.Begin(context.WithoutCancel(ctx), r); err != nil {
				s.cfg.Log.Warn("codex hook: hand a question to the terminal", "id", r.ID, "err", err)
			}
			return nil, nil
		}
	}
}

// questionID is the wait id of the question a tool call asks.
func questionID(key string, ev HookEvent) string {
	return waits.QuestionID(key, cmp.Or(ev.ToolUseID, ev.TurnID+string(ev.ToolInput)))
}

func (s *Service) closeWait(ctx context.Context, id, why string) {
	if _, err := s.cfg.Asker.Close(context.WithoutCancel(ctx), id, TerminalDecider, why); err != nil {
		s.cfg.Log.Warn("codex hook: close a wait", "id", id, "err", err)
	}
}

// note keeps the session's kept waits in step with ev: a question answered in the terminal ends
// (PostToolUse of request_user_input); the "waiting for your next prompt" wait ends when the
// person types or the agent works again, and questions still open in a session that moved on
// end with it.
func (s *Service) note(ctx context.Context, ev HookEvent) {
	key := SessionKey(ev.SessionID)
	switch ev.HookEventName {
	case EventPostToolUse:
		if ev.ToolName == ToolRequestUserInput {
			why := "answered in the terminal"
			if a := ResponseAnswers(ev.ToolResponse); a != "" {
				why += ": " + a
			}
			s.closeWait(ctx, questionID(key, ev), why)
		}
		s.closeWait(ctx, waits.InputID(key), "the session went on")
	case EventUserPromptSubmit, EventSessionStart, EventPreToolUse:
		s.closeWait(ctx, waits.InputID(key), "the session went on")
		if ev.HookEventName == EventUserPromptSubmit {
			s.closeQuestions(ctx, key, "the person typed a new prompt")
		}
	case EventStop:
		s.closeQuestions(ctx, key, "the turn ended")
	}
}

// closeQuestions ends the session's open questions: Codex moved on without them.
func (s *Service) closeQuestions(ctx context.Context, key, why string) {
	open, err := s.cfg.Asker.Open(ctx)
	if err != nil {
		s.cfg.Log.Warn("codex hook: list open waits", "err", err)
		return
	}
	for _, r := range open {
		if r.Kind == waits.KindQuestion && r.SessionID == key {
			s.closeWait(ctx, r.ID, why)
		}
	}
}

// beginInput lists the session as waiting for its next prompt, with Codex's last message.
func (s *Service) beginInput(ctx context.Context, ev HookEvent) {
	key := SessionKey(ev.SessionID)
	err := s.cfg.Asker.Begin(ctx, waits.Record{ID: waits.InputID(key), Kind: waits.KindInput, SessionID: key, Agent: AgentName,
		AgentName: AgentTitle, Title: "Codex waits for your next prompt",
		Text: waits.Cut(ev.LastAssistantMessage, waits.MaxMessageBytes), Since: s.cfg.Asker.Now()})
	if err != nil {
		s.cfg.Log.Warn("codex hook: keep the session's input wait", "session", key, "err", err)
	}
}

package qwen

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/waits"
)

// Asker keeps the waits plandash holds itself (waits.Asked): Qwen Code's questions, and
// sessions waiting for the next prompt.
type Asker = waits.Asker

// defaultQuestionDeadline is how long a question waits for an answer in plandash before Qwen
// Code's own dialog asks it. Qwen awaits the PermissionRequest hook before it shows the
// dialog, so the terminal cannot answer meanwhile.
const defaultQuestionDeadline = 10 * time.Minute

// questionID is the wait id of an ask_user_question call. PermissionRequest carries no call
// id, so the id comes from the questions; PostToolUse of the same call finds the same id.
func questionID(key string, qs []waits.Question) string {
	return waits.QuestionID(key, ToolAskUserQuestion+"\x00"+waits.QuestionsText(qs))
}

// ask holds ask_user_question until the person answers it in plandash, and answers the hook
// with their answers. Nothing (Qwen's dialog asks) when the questions cannot be read, when the
// wait ended otherwise, when the hook gave up, or when nobody answered by the deadline; the wait
// then stays listed as one to answer in the terminal, until Qwen reports the answer
// (PostToolUse) or the session moves on.
func (s *Service) ask(ctx context.Context, ev Event) ([]byte, error) {
	qs, err := Questions(ev.ToolInput)
	if err != nil {
		s.cfg.Log.Warn("qwen hook: a question plandash cannot show; the terminal asks", "err", err)
		return nil, nil
	}
	key := SessionKey(ev.SessionID)
	now := s.cfg.Asker.Now()
	title := qs[0].Question
	if len(qs) > 1 {
		title += " (and more)"
	}
	r := waits.Record{ID: questionID(key, qs), Kind: waits.KindQuestion, SessionID: key, Agent: AgentName, AgentName: AgentTitle,
		Title: title, Text: waits.QuestionsText(qs), Questions: qs, Answerable: true, Since: now,
		Deadline: now.Add(s.cfg.QuestionDeadline), Then: "Qwen Code's dialog asks in the terminal"}
	if err := s.cfg.Asker.Begin(ctx, r); err != nil {
		return nil, err
	}
	for {
		got, err := s.cfg.Asker.Wait(ctx, r.ID, max(r.Deadline.Sub(s.cfg.Asker.Now()), 0))
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, err
		case err == nil && !got.Open():
			return QuestionAnswer(qs, got.Answers), nil
		case ctx.Err() != nil, !s.cfg.Asker.Now().Before(r.Deadline):
			// The hook gave up (its timeout) or the deadline passed: Qwen's dialog asks now.
			r.Answerable, r.Deadline, r.Then = false, time.Time{}, ""
			if err := s.cfg.Asker.Begin(context.WithoutCancel(ctx), r); err != nil {
				s.cfg.Log.Warn("qwen hook: hand a question to the terminal", "id", r.ID, "err", err)
			}
			return nil, ctx.Err()
		}
	}
}

func (s *Service) closeWait(ctx context.Context, id, why string) {
	if _, err := s.cfg.Asker.Close(context.WithoutCancel(ctx), id, TerminalDecider, why); err != nil {
		s.cfg.Log.Warn("qwen hook: close a wait", "id", id, "err", err)
	}
}

// note keeps the session's kept waits in step with ev: a question answered in the terminal ends
// (PostToolUse of ask_user_question); the turn's end (Stop) lists the session as waiting for
// its next prompt with the last response, which ends when the person types or the agent works
// again; and questions still open when the session moves on end with it.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID)
	input := waits.InputID(key)
	switch ev.HookEventName {
	case EventPostToolUse, EventPostToolUseFailure:
		if ev.ToolName == ToolAskUserQuestion {
			if qs, err := Questions(ev.ToolInput); err == nil {
				why := "answered in the terminal"
				if a := ResponseAnswers(ev.ToolResponse); a != "" {
					why += ": " + a
				}
				s.closeWait(ctx, questionID(key, qs), why)
			}
		}
	case EventUserPromptSubmit, EventSessionStart, EventPreToolUse:
		s.closeWait(ctx, input, "the session went on")
		if ev.HookEventName != EventPreToolUse && (ev.HookEventName != EventUserPromptSubmit || ev.SubmittedPrompt != "") {
			s.closeQuestions(ctx, key, "the person typed a new prompt")
		}
	case EventStop:
		s.closeQuestions(ctx, key, "the turn ended")
		err := s.cfg.Asker.Begin(ctx, waits.Record{ID: input, Kind: waits.KindInput, SessionID: key, Agent: AgentName,
			AgentName: AgentTitle, Title: "Qwen Code waits for your next prompt",
			Text: waits.Cut(ev.LastMessage, waits.MaxMessageBytes), Since: s.cfg.Asker.Now()})
		if err != nil {
			s.cfg.Log.Warn("qwen hook: keep the session's input wait", "session", key, "err", err)
		}
	case EventSessionEnd:
		s.closeWait(ctx, input, "the session ended")
		s.closeQuestions(ctx, key, "the session ended")
	}
}

// closeQuestions ends the session's open questions: Qwen moved on without them.
func (s *Service) closeQuestions(ctx context.Context, key, why string) {
	open, err := s.cfg.Asker.Open(ctx)
	if err != nil {
		s.cfg.Log.Warn("qwen hook: list open waits", "err", err)
		return
	}
	for _, r := range open {
		if r.Kind == waits.KindQuestion && r.SessionID == key {
			s.closeWait(ctx, r.ID, why)
		}
	}
}

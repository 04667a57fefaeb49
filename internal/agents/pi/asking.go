package pi

import (
	"context"
	"encoding/json"
	"strings"
	"time"

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
	key := SessionKey(ev.SessionID)
	now := s.cfg.Asker.Now()
	r := waits.Record{ID: questionID(ev), Kind: waits.KindQuestion, SessionID: key, Agent: AgentName, AgentName: AgentTitle,
		Title: q.Question, Text: waits.QuestionsText([]waits.Question{q}), Questions: []waits.Question{q}, Answerable: true,
		Since: now, Deadline: now.Add(s.cfg.QuestionDeadline), Then: "Pi asks in its terminal"}
	if err := s.cfg.Asker.Begin(ctx, r); err != nil {
		return nil, err
	}
	for {
		got, err := s.cfg.Asker.Wait(ctx, r.ID, max(r.Deadline.Sub(s.cfg.Asker.Now()), 0))
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, err
		case err == nil && !got.Open():
			if len(got.Answers[q.Question]) == 0 {
				return nil, nil
			}
			return json.Marshal(Answer{Answers: got.Answers[q.Question]})
		case ctx.Err() != nil, !s.cfg.Asker.Now().Before(r.Deadline):
			// The deadline passed or Pi stopped waiting: the terminal asks now.
			r.Answerable, r.Deadline, r.Then = false, time.Time{}, ""
			if err := s.cfg.Asker.Begin(context.WithoutCancel(ctx), r); err != nil {
				s.cfg.Log.Warn("pi: hand a question to the terminal", "id", r.ID, "err", err)
			}
			return nil, ctx.Err()
		}
	}
}

// note keeps the session's kept waits in step with ev: a question answered in the terminal
// ends; the turn's end lists the session as waiting for its next prompt with its last answer,
// which ends when a prompt begins; questions still open when the session moves on end with it.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID)
	input := waits.InputID(key)
	switch ev.Type {
	case EventAnswered:
		why := "answered in the terminal"
		if len(ev.Answers) > 0 {
			why += ": " + waits.Cut(strings.Join(ev.Answers, ", "), 1024)
		}
		s.closeWait(ctx, questionID(ev), why)
	case EventPrompt, EventSessionStart:
		s.closeWait(ctx, input, "the session went on")
		s.closeQuestions(ctx, key, "a new prompt began")
	case EventAgentEnd:
		s.closeQuestions(ctx, key, "the turn ended")
		err := s.cfg.Asker.Begin(ctx, waits.Record{ID: input, Kind: waits.KindInput, SessionID: key, Agent: AgentName,
			AgentName: AgentTitle, Title: "Pi waits for your next prompt",
			Text: waits.Cut(ev.Text, waits.MaxMessageBytes), Since: s.cfg.Asker.Now()})
		if err != nil {
			s.cfg.Log.Warn("pi: keep the session's input wait", "session", key, "err", err)
		}
	case EventSessionShutdown:
		s.closeWait(ctx, input, "the session ended")
		s.closeQuestions(ctx, key, "the session ended")
	}
}

func (s *Service) closeWait(ctx context.Context, id, why string) {
	if _, err := s.cfg.Asker.Close(context.WithoutCancel(ctx), id, TerminalDecider, why); err != nil {
		s.cfg.Log.Warn("pi: close a wait", "id", id, "err", err)
	}
}

// closeQuestions ends the session's open questions: Pi moved on without them.
func (s *Service) closeQuestions(ctx context.Context, key, why string) {
	open, err := s.cfg.Asker.Open(ctx)
	if err != nil {
		s.cfg.Log.Warn("pi: list open waits", "err", err)
		return
	}
	for _, r := range open {
		if r.Kind == waits.KindQuestion && r.SessionID == key {
			s.closeWait(ctx, r.ID, why)
		}
	}
}

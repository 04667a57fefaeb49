package cline

import (
	"context"

	"github.com/plandash/plandash/internal/waits"
)

// note keeps the session's input wait in step with ev: the turn's end lists the session as
// waiting for its next prompt, with the turn's answer; the next prompt, task or tool call ends
// it, as does the session's end.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID())
	input := waits.InputID(key)
	switch ev.HookName {
	case HookTaskComplete:
		if s.ended(key) || ev.Interactive != nil && !*ev.Interactive {
			// Cline runs this hook detached, so the session may have ended first; and a
			// headless session exits after its task instead of waiting for a prompt.
			return
		}
		text := ""
		if ev.Turn != nil {
			text = ev.Turn.OutputText
		}
		err := s.cfg.Asker.Begin(ctx, waits.Record{ID: input, Kind: waits.KindInput, SessionID: key, Agent: AgentName,
			AgentName: AgentTitle, Title: "Cline waits for your next prompt",
			Text: waits.Cut(text, waits.MaxMessageBytes), Since: s.cfg.Asker.Now()})
		if err != nil {
			s.cfg.Log.Warn("cline hook: keep the session's input wait", "session", key, "err", err)
		}
	case HookTaskStart, HookTaskResume, HookPromptSubmit, HookPreToolUse:
		s.setEnded(key, false)
		s.closeInput(ctx, input, "the session went on")
	case HookShutdown:
		s.setEnded(key, true)
		s.closeInput(ctx, input, "the session ended")
	}
}

func (s *Service) closeInput(ctx context.Context, id, why string) {
	if _, err := s.cfg.Asker.Close(context.WithoutCancel(ctx), id, TerminalDecider, why); err != nil {
		s.cfg.Log.Warn("cline hook: close a wait", "id", id, "err", err)
	}
}

// ended reports whether the session's last word was its end.
func (s *Service) ended(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.over[key]
}

func (s *Service) setEnded(key string, over bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !over {
		delete(s.over, key)
		return
	}
	if len(s.over) >= maxSeen {
		clear(s.over)
	}
	s.over[key] = true
}

package cline

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/waits"
)

// note keeps the session's kept waits in step with ev: the turn's end lists the session as
// waiting for its next prompt, with the turn's answer; the next prompt, task or tool call ends
// it, as does the session's end. An ask_question call is listed until Cline reports its result
// or the turn ends.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.SessionID())
	a := s.asking()
	switch ev.HookName {
	case HookTaskComplete, HookTaskCancel, HookTaskError, HookShutdown, HookPromptSubmit:
		a.CloseQuestions(ctx, key, "the turn ended")
	}
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
		a.AwaitPrompt(ctx, key, text)
	case HookTaskStart, HookTaskResume, HookPromptSubmit, HookPreToolUse:
		s.setEnded(key, false)
		a.WentOn(ctx, key, false)
		if ev.ToolCall != nil && ev.ToolCall.Name == ToolAskQuestion {
			s.listQuestion(ctx, ev)
		}
	case HookPostToolUse:
		if r := ev.ToolResult; r != nil && r.Name == ToolAskQuestion {
			a.Answered(ctx, waits.QuestionID(key, r.ID), "")
		}
	case HookShutdown:
		s.setEnded(key, true)
		a.Close(ctx, waits.InputID(key), "the session ended")
	}
}

// asking is how the Service keeps its waits (the kit's, in Cline's words).
func (s *Service) asking() agentkit.Asking {
	return agentkit.Asking{Asker: s.cfg.Asker, Log: s.cfg.Log, Agent: AgentName, Title: AgentTitle, Hook: "cline hook"}
}

// listQuestion lists Cline's ask_question as a wait to answer in Cline's terminal: a PreToolUse
// hook cannot answer a tool (only stop the run, add context or rewrite the input), so plandash
// shows the question and who waits on it, and the terminal answers.
func (s *Service) listQuestion(ctx context.Context, ev Event) {
	var in struct {
		Question string   `json:"question"`
		Options  []string `json:"options"`
	}
	if json.Unmarshal(ev.ToolCall.Input, &in) != nil || strings.TrimSpace(in.Question) == "" {
		return
	}
	q := waits.Question{Question: in.Question, FreeText: len(in.Options) == 0}
	for _, o := range in.Options[:min(len(in.Options), waits.MaxOptions)] {
		q.Options = append(q.Options, waits.Option{Label: o})
	}
	qs := waits.Bound([]waits.Question{q})
	if len(qs) != 1 {
		return
	}
	key := SessionKey(ev.SessionID())
	err := s.cfg.Asker.Begin(ctx, waits.Record{ID: waits.QuestionID(key, ev.ToolCall.ID), Kind: waits.KindQuestion, SessionID: key,
		Agent: AgentName, AgentName: AgentTitle, Title: qs[0].Question, Text: waits.QuestionsText(qs), Questions: qs,
		Answerable: false, Since: s.cfg.Asker.Now()})
	if err != nil {
		s.cfg.Log.Warn("cline hook: list a question", "session", key, "err", err)
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

package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/errs"
)

// HookEvent is what plandash's OpenCode plugin posts to POST /api/v1/hooks/opencode: one event
// of OpenCode's bus, as the plugin's event hook received it, with where it happened.
type HookEvent struct {
	Event
	// Directory is the directory OpenCode runs in (the plugin's input.directory).
	Directory string `json:"directory,omitempty"`
	// Host is the machine OpenCode runs on.
	Host string `json:"host,omitempty"`
	// Plan and PlanPath are plan_exit's plan file as the plugin read it inside OpenCode, whose
	// files they are: the server then reads no file an event names (it could only read one
	// under its plan roots).
	Plan     string `json:"plan,omitempty"`
	PlanPath string `json:"planPath,omitempty"`
}

// PlanText is a plan a client read and sent; empty when it sent none.
type PlanText struct {
	Markdown string
	Path     string
}

// DecodeHook reads one posted event. It fails only when the body is not a JSON object with a
// type; properties of an unexpected shape are ignored by the readers.
func DecodeHook(body []byte) (HookEvent, error) {
	var ev HookEvent
	if err := json.Unmarshal(bytes.TrimSpace(body), &ev); err != nil {
		return HookEvent{}, err
	}
	if ev.Type == "" {
		return HookEvent{}, errors.New("opencode event: no type")
	}
	return ev, nil
}

// HookReply is the answer to a held event: the request the plugin makes to OpenCode's own
// server through its client, e.g. POST /question/{id}/reply with {"answers":[["Yes"]]}.
type HookReply struct {
	Reply struct {
		Path string         `json:"path"`
		Body map[string]any `json:"body"`
	} `json:"reply"`
}

// HookConfig tunes a HookService.
type HookConfig struct {
	// Host names the machine when the plugin did not say; os.Hostname when empty.
	Host string
	// Permissions holds permission requests at the gate too (plan_exit's question always is,
	// when there is a gate).
	Permissions bool
	// Deadline is how long a request waits at the gate; 12h when zero. When it passes nothing
	// is answered: OpenCode's own prompt stays open.
	Deadline time.Duration
	// PlanRoots are the only directories plan files may be read from: the server's allowed
	// roots and OpenCode's data directory (~/.local/share/opencode/plans, for projects without
	// git). The session's directory, which events report, is not one unless configured.
	PlanRoots []string
	// Log receives what went wrong without failing the plugin; slog.Default when nil.
	Log *slog.Logger
	// Flavor is the agent whose plugin posts: OpenCode when nil, or a fork of it (Kilo Code's
	// CLI).
	Flavor *Flavor
	// Asker keeps OpenCode's other questions (not plan_exit's), held until a person answers
	// them in plandash or in OpenCode, and sessions waiting for their next prompt; nil: neither
	// is listed.
	Asker Asker
}

// HookService handles the events plandash's OpenCode plugin posts: todo lists become the
// session's checklist, plan_exit's question (and, when configured, permission requests) is held
// at the gate and other questions as waits (with an Asker) until a person decides, OpenCode is answered in its own prompt (the plugin
// posts the reply event, which ends the wait), or the plugin stops waiting. It is safe for
// concurrent use.
type HookService struct {
	*core
	cfg HookConfig
}

// NewHookService makes a HookService. gate may be nil to record todos without holding anything.
func NewHookService(apply Applier, gate Gate, cfg HookConfig) *HookService {
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	return &HookService{core: newCore(cfg.Flavor, apply, gate, cfg.Host, cfg.Deadline, cfg.PlanRoots, cfg.Log), cfg: cfg}
}

// Handle takes one posted event and returns the answer: empty for every event but a held one,
// for which it waits until a person decides and returns a HookReply (still empty when nothing
// is to be sent: expired, answered in OpenCode, or ctx ended). An error means the body was
// unusable.
func (s *HookService) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := DecodeHook(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	switch ev.Type {
	case EventSessionCreated, EventSessionUpdated:
		var p struct {
			Info SessionInfo `json:"info"`
		}
		if json.Unmarshal(ev.Properties, &p) == nil {
			if p.Info.Directory == "" {
				p.Info.Directory = ev.Directory
			}
			p.Info.Host = ev.Host
			s.remember(p.Info)
		}
	case EventTodoUpdated:
		var p TodoUpdated
		if json.Unmarshal(ev.Properties, &p) != nil || p.SessionID == "" {
			return nil, errs.Errorf(errs.Invalid, "todo.updated without a session")
		}
		s.rememberDir(p.SessionID, ev.Directory, ev.Host)
		s.todos(ctx, p)
	case EventQuestionAsked:
		var q QuestionAsked
		if json.Unmarshal(ev.Properties, &q) != nil || q.ID == "" || q.SessionID == "" {
			return nil, nil
		}
		path, ok := s.fl.PlanExit(q)
		switch {
		case ok && s.gate != nil:
			s.rememberDir(q.SessionID, ev.Directory, ev.Host)
			return s.holdPlanExit(ctx, q, path, PlanText{Markdown: ev.Plan, Path: hookkit.Truncate(ev.PlanPath, 4096)})
		case !ok && s.cfg.Asker != nil:
			s.rememberDir(q.SessionID, ev.Directory, ev.Host)
			return s.holdQuestion(ctx, q)
		}
	case EventSessionIdle, EventSessionStatus:
		if s.cfg.Asker != nil {
			noteInput(ctx, s.fl, s.cfg.Asker, ev.Event, s.log)
		}
	case EventPermissionAsked:
		var p PermissionAsked
		if s.gate == nil || !s.cfg.Permissions || json.Unmarshal(ev.Properties, &p) != nil || p.ID == "" || p.SessionID == "" {
			return nil, nil
		}
		s.rememberDir(p.SessionID, ev.Directory, ev.Host)
		return s.holdPermission(ctx, p)
	case EventQuestionReplied, EventQuestionRejected, EventPermissionReplied:
		var r Replied
		if json.Unmarshal(ev.Properties, &r) == nil {
			s.answered(r.RequestID, r.Outcome(ev.Type))
		}
	}
	return nil, nil
}

func (s *HookService) holdPlanExit(ctx context.Context, q QuestionAsked, path string, given PlanText) ([]byte, error) {
	hctx, cancel, ok := s.register(ctx, q.ID)
	if !ok {
		return nil, nil // already held: the first post answers
	}
	defer cancel(nil)
	defer s.unregister(q.ID)
	answer, done, ok := s.planExit(hctx, q, path, given)
	if !ok {
		return nil, nil
	}
	// The outcome is recorded now: the plugin sends the answer, and nothing reports back when
	// OpenCode took it but its question.replied event.
	done(context.WithoutCancel(ctx))
	return reply("/question/"+q.ID+"/reply", map[string]any{"answers": [][]string{{answer}}})
}

// holdQuestion keeps one of OpenCode's questions as a wait until a person answers it in
// plandash, and answers with the reply the plugin sends OpenCode; nothing when it was answered
// in OpenCode first (the plugin posts question.replied, which ends the wait) or the plugin
// stopped waiting.
func (s *HookService) holdQuestion(ctx context.Context, q QuestionAsked) ([]byte, error) {
	hctx, cancel, ok := s.register(ctx, q.ID)
	if !ok {
		return nil, nil // already held: the first post answers
	}
	defer cancel(nil)
	defer s.unregister(q.ID)
	answers, ok := keepQuestion(hctx, s.fl, s.cfg.Asker, q, s.log)
	if !ok {
		return nil, nil
	}
	return reply("/question/"+q.ID+"/reply", map[string]any{"answers": answers})
}

func (s *HookService) holdPermission(ctx context.Context, p PermissionAsked) ([]byte, error) {
	hctx, cancel, ok := s.register(ctx, p.ID)
	if !ok {
		return nil, nil
	}
	defer cancel(nil)
	defer s.unregister(p.ID)
	body, ok := s.permission(hctx, p)
	if !ok {
		return nil, nil
	}
	return reply("/permission/"+p.ID+"/reply", body)
}

func reply(path string, body map[string]any) ([]byte, error) {
	var r HookReply
	r.Reply.Path, r.Reply.Body = path, body
	return json.Marshal(r)
}

package qwen

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// Applier is what the Service uses of plans.Service.
type Applier = agentkit.Applier

// Gate is what the Service uses of approval.Gate.
type Gate = agentkit.Gate

// Config tunes the Service.
type Config struct {
	// Host names the machine when the hook did not say. os.Hostname when empty.
	Host string
	// Deadline is how long a plan waits at the gate; 12h when zero. Keep it under the hook's
	// timeout in settings.json.
	Deadline time.Duration
	// Log receives what went wrong without failing the hook; slog.Default when nil.
	Log *slog.Logger
	// Asker keeps Qwen Code's questions and sessions waiting for their next prompt; nil:
	// neither is listed, and questions are left to the terminal.
	Asker Asker
	// QuestionDeadline is how long a question waits for an answer in plandash before Qwen
	// Code's dialog asks it in the terminal; 10 minutes when zero.
	QuestionDeadline time.Duration
}

// TerminalDecider is who decisions that close a request answered elsewhere are recorded under.
const TerminalDecider = agentkit.TerminalDecider

// Service handles Qwen Code hook events against the real domain: it records them as ACP
// updates, holds exit_plan_mode plans at the gate and, with an Asker, ask_user_question's
// questions as waits. It is safe for concurrent use.
type Service struct {
	plans Applier
	gate  Gate // nil: plans are only recorded
	cfg   Config

	seen agentkit.Seen
}

// NewService makes a Service. gate may be nil to record plans without holding them.
func NewService(p Applier, gate Gate, cfg Config) *Service {
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 12 * time.Hour
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.QuestionDeadline <= 0 {
		cfg.QuestionDeadline = defaultQuestionDeadline
	}
	return &Service{plans: p, gate: gate, cfg: cfg}
}

// Handle takes one hook payload (the body of POST /api/v1/hooks/qwen) and returns the hook's
// answer: empty for every event but PermissionRequest of exit_plan_mode, for which it waits
// until the person decides, the deadline passes or ctx ends, and then returns empty (Qwen
// Code's dialog asks) or a deny, and PermissionRequest of ask_user_question, for which it
// waits likewise for the person's answers (QuestionAnswer) or returns empty (the dialog asks).
// An error means the payload was unusable or the store failed; the hook then prints nothing.
func (s *Service) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := Decode(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	if ev.SessionID == "" {
		return nil, errs.Errorf(errs.Invalid, "%v", ErrNoSession)
	}
	if err := s.record(ctx, ev); err != nil {
		return nil, err
	}
	if s.cfg.Asker != nil {
		s.note(ctx, ev)
		if IsQuestionEvent(ev) {
			return s.ask(ctx, ev)
		}
	}
	if s.gate == nil {
		return nil, nil
	}
	if endsTurn(ev) {
		s.closeStale(ctx, ev)
	}
	if !IsGateEvent(ev) {
		return nil, nil
	}
	return s.hold(ctx, ev)
}

// Captures reports whether body is an event that needs no answer (everything but a plan at the
// gate or a question): the server may acknowledge it before it is recorded.
func (s *Service) Captures(body []byte) bool {
	ev, err := Decode(body)
	return err == nil && ev.SessionID != "" && !IsGateEvent(ev) && !IsQuestionEvent(ev)
}

// record translates ev and applies it.
func (s *Service) record(ctx context.Context, ev Event) error {
	key := SessionKey(ev.SessionID)
	st := State{Announce: !s.seen.Has(key), Host: s.cfg.Host}
	if ev.Host != "" {
		st.Host = ev.Host
	}
	msgs, err := Translate(ev, st)
	if err != nil {
		return errs.Errorf(errs.Invalid, "%v", err)
	}
	return s.recorder().Record(ctx, &s.seen, key, ev.HookEventName, msgs)
}

// recorder applies what the Service translated.
func (s *Service) recorder() agentkit.Recorder {
	return agentkit.Recorder{Plans: s.plans, Log: s.cfg.Log, Name: "qwen", Hook: "qwen hook"}
}

// endsTurn reports whether ev shows that no plan of its session can still be waiting for the
// hook: the turn or the session is over, or a new prompt began.
func endsTurn(ev Event) bool {
	switch ev.HookEventName {
	case EventStop, EventSessionEnd:
		return true
	case EventUserPromptSubmit:
		return ev.SubmittedPrompt != ""
	}
	return false
}

// HookStopped is what a request says once the hook stopped waiting for plandash's answer.
const HookStopped = "the Qwen Code hook stopped waiting — Qwen Code's own dialog decides"

// closeStale decides the session's pending plan requests, so the inbox does not offer a
// decision that can no longer reach Qwen Code. Failures are logged only.
func (s *Service) closeStale(ctx context.Context, ev Event) {
	s.holding().CloseStale(ctx, s.gate, SessionKey(ev.SessionID))
}

// hold submits the plan and waits for its decision.
func (s *Service) hold(ctx context.Context, ev Event) ([]byte, error) {
	// Should the hook give up (its timeout, or Qwen Code was stopped), Qwen Code's dialog asks:
	// Hold hands the request to the terminal, not rejected.
	r, err := s.holding().Hold(ctx, s.gate, s.submission(ev))
	if err != nil {
		return nil, err
	}
	return Answer(decision(r)), nil
}

// decision turns the gate's outcome into the hook's. An expired request is left to Qwen
// Code's own dialog, which is still to come: the person at the terminal decides.
func decision(r approval.Request) Decision {
	d := r.Decision
	if d == nil || d.Expired {
		return Decision{}
	}
	switch r.Status {
	case approval.Approved:
		return Decision{}
	case approval.Modified:
		edited := ""
		if d.Plan != nil {
			edited = d.Plan.Markdown
		}
		return Revise(edited, d.Comment)
	}
	return Decision{Deny: true, Message: d.Reason()}
}

// submission is the gate request for an exit_plan_mode call.
func (s *Service) submission(ev Event) approval.Submission {
	md := hookkit.Truncate(PlanOf(ev.ToolInput), MaxPlan)
	if strings.TrimSpace(md) == "" {
		md = "_Qwen Code sent no plan text with exit_plan_mode._"
	}
	host := ev.Host
	if host == "" {
		host = s.cfg.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Qwen Code is waiting in plan mode in `%s` on %s (session `%s`).\n\n",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(host, 256), hookkit.Truncate(ev.SessionID, 256))
	b.WriteString("- **Approve**: Qwen Code's own dialog then asks in the terminal how to go on (a hook cannot approve it for you).\n")
	b.WriteString("- **Modify**: Qwen Code is asked to propose your edited plan instead.\n")
	b.WriteString("- **Reject**: Qwen Code stays in plan mode; your reason is sent to it.\n\n")
	b.WriteString("If nobody decides before the deadline, Qwen Code's dialog asks in the terminal.")
	return approval.Submission{
		SessionID: SessionKey(ev.SessionID), Agent: AgentTitle, Title: planTitle(md), Context: b.String(),
		Plan:    approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md},
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject},
		Timeout: approval.Duration(s.cfg.Deadline), Default: approval.Reject, Then: "Qwen Code's dialog asks in the terminal",
	}
}

// planTitle is the plan's first heading, or a generic title.
func planTitle(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return hookkit.Truncate("Plan: "+t, approval.MaxTitle-10)
		}
	}
	return "Qwen Code plan"
}

// holding is how the Service holds its plans at the gate.
func (s *Service) holding() agentkit.Holding {
	return agentkit.Holding{Log: s.cfg.Log, Hook: "qwen hook", Agent: AgentTitle, Stopped: HookStopped}
}

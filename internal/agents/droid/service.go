package droid

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
	// Deadline is how long a spec waits at the gate; 12h when zero. Keep it under the hook's
	// timeout in settings.json (seconds there).
	Deadline time.Duration
	// Log receives what went wrong without failing the hook; slog.Default when nil.
	Log *slog.Logger
	// Asker keeps Droid's questions and sessions waiting for their next prompt; nil: neither
	// is listed, and questions are left to the terminal.
	Asker Asker
	// QuestionDeadline is how long a question waits for an answer in plandash before Droid's
	// dialog asks it in the terminal; 10 minutes when zero.
	QuestionDeadline time.Duration
}

// TerminalDecider is who decisions that close a request answered elsewhere are recorded under.
const TerminalDecider = agentkit.TerminalDecider

// Service handles Droid hook events against the real domain: it records them as ACP updates,
// holds ExitSpecMode's specs at the gate and AskUser's questions as waits. It is safe for
// concurrent use.
type Service struct {
	plans Applier
	gate  Gate // nil: specs are only recorded
	cfg   Config

	seen agentkit.Seen
}

// NewService makes a Service. gate may be nil to record specs without holding them.
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

// Handle takes one hook payload (the body of POST /api/v1/hooks/droid) and returns the hook's
// answer: empty for every event but PreToolUse of ExitSpecMode, for which it waits until the
// person decides, the deadline passes or ctx ends and returns the decision (Answer), and
// PreToolUse of AskUser, for which it waits likewise for the person's answers
// (QuestionAnswer) or returns empty (the dialog asks).
// An error means the payload was unusable or the store failed; the hook then leaves the
// decision to the terminal.
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

// Captures reports whether body is an event that needs no answer (everything but a spec at the
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
	return agentkit.Recorder{Plans: s.plans, Log: s.cfg.Log, Name: "droid", Hook: "droid hook"}
}

// endsTurn reports whether ev shows that no spec of its session can still be waiting for the
// hook: the turn or the session is over, or a new prompt began.
func endsTurn(ev Event) bool {
	switch ev.HookEventName {
	case EventStop, EventUserPromptSubmit, EventSessionEnd:
		return true
	}
	return false
}

// HookStopped is what a request says once the hook stopped waiting for plandash's answer.
const HookStopped = "the Droid hook stopped waiting — outcome not known yet"

// closeStale decides the session's pending requests, so the inbox does not offer a decision
// that can no longer reach Droid. Failures are logged only.
func (s *Service) closeStale(ctx context.Context, ev Event) {
	s.holding().CloseStale(ctx, s.gate, SessionKey(ev.SessionID))
}

// hold submits the spec and waits for its decision.
func (s *Service) hold(ctx context.Context, ev Event) ([]byte, error) {
	// Should the hook give up (its timeout, or Droid was stopped), nobody answers into the void:
	// what Droid did without an answer is not known here, so Hold hands the request over.
	r, err := s.holding().Hold(ctx, s.gate, s.submission(ev))
	if err != nil {
		return nil, err
	}
	return Answer(decision(r)), nil
}

// decision turns the gate's outcome into the hook's. An expired request keeps its default
// outcome (reject): the model is told nobody approved, and Droid stays in spec mode.
func decision(r approval.Request) Decision {
	d := r.Decision
	if d == nil {
		return Decision{Reason: "plandash reached no decision on the spec."}
	}
	if d.Expired && r.Status == approval.Rejected {
		return Decision{Reason: "Nobody approved the spec in plandash before its deadline. Stay in spec mode and ask the user how to proceed."}
	}
	switch r.Status {
	case approval.Approved:
		return Decision{Allow: true}
	case approval.Modified:
		edited := ""
		if d.Plan != nil {
			edited = d.Plan.Markdown
		}
		if c := strings.TrimSpace(d.Comment); c != "" && strings.TrimSpace(edited) != "" {
			edited += "\n\nReviewer's note: " + c
		}
		return Decision{Allow: true, Plan: edited}
	}
	return Decision{Reason: d.Reason()}
}

// submission is the gate request for an ExitSpecMode call.
func (s *Service) submission(ev Event) approval.Submission {
	md := inputString(ev.ToolInput, "plan")
	if strings.TrimSpace(md) == "" {
		md = "_Droid proposed a spec without text._"
	}
	md = hookkit.Truncate(md, maxPlanText)
	host := ev.Host
	if host == "" {
		host = s.cfg.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Droid is waiting in spec mode in `%s` on %s (session `%s`).\n\n",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(host, 256), hookkit.Truncate(ev.SessionID, 256))
	b.WriteString("- **Approve**: Droid leaves spec mode and starts implementing.\n")
	b.WriteString("- **Modify**: Droid takes your edited text as the approved spec.\n")
	b.WriteString("- **Reject**: Droid stays in spec mode; your reason is sent to it.\n\n")
	b.WriteString("If nobody decides before the deadline, the spec is rejected and Droid stays in spec mode.")
	return approval.Submission{
		SessionID: SessionKey(ev.SessionID), Agent: AgentTitle, Title: specTitle(ev, md), Context: b.String(),
		Plan:    approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md},
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject},
		Timeout: approval.Duration(s.cfg.Deadline), Default: approval.Reject,
	}
}

// specTitle is ExitSpecMode's title, else the spec's first heading, else a generic title.
func specTitle(ev Event, md string) string {
	if t := strings.TrimSpace(inputString(ev.ToolInput, "title")); t != "" {
		return hookkit.Truncate("Spec: "+t, approval.MaxTitle-10)
	}
	for line := range strings.Lines(md) {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return hookkit.Truncate("Spec: "+t, approval.MaxTitle-10)
		}
	}
	return "Droid spec"
}

// holding is how the Service holds its plans at the gate.
func (s *Service) holding() agentkit.Holding {
	return agentkit.Holding{Log: s.cfg.Log, Hook: "droid hook", Agent: AgentTitle, Stopped: HookStopped}
}

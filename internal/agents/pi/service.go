package pi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
)

// Applier is what the Service uses of plans.Service.
type Applier = agentkit.Applier

// Gate is what the Service uses of approval.Gate.
type Gate interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
}

// Asker keeps the waits plandash holds itself (waits.Asked): Pi's questions, and sessions
// waiting for the next prompt.
type Asker = waits.Asker

// Config tunes the Service.
type Config struct {
	// Host names the machine when the extension did not say; os.Hostname when empty.
	Host string
	// Deadline is how long a plan waits at the gate; 12h when zero. When it passes the plan is
	// rejected and Pi's model is told nobody approved it.
	Deadline time.Duration
	// QuestionDeadline is how long an ask_user question waits for an answer in plandash before
	// the extension asks it in Pi's terminal; 10 minutes when zero.
	QuestionDeadline time.Duration
	// Asker keeps Pi's questions and sessions waiting for their next prompt; nil: neither is
	// listed, and questions are asked in the terminal.
	Asker Asker
	// Log receives what went wrong without failing the extension; slog.Default when nil.
	Log *slog.Logger
}

// TerminalDecider is who decisions made in Pi's terminal are recorded under.
const TerminalDecider = agentkit.TerminalDecider

// ExtensionStopped is what a request says once the extension stopped waiting for its answer.
const ExtensionStopped = "Pi stopped waiting — the plan is asked in Pi's terminal, outcome not known"

// Answer is what the Service answers a held event with, and what the extension reads.
type Answer struct {
	// Decision is "approved" or "rejected" for a plan ("approved" also for a plan a person
	// edited: Message then holds the edited plan); empty when nobody decided.
	Decision string `json:"decision,omitempty"`
	// Message is what the model is told.
	Message string `json:"message,omitempty"`
	// Answers are a question's answers, in the order given.
	Answers []string `json:"answers,omitempty"`
}

// Service handles the events plandash's Pi extension posts. It is safe for concurrent use.
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
	if cfg.QuestionDeadline <= 0 {
		cfg.QuestionDeadline = 10 * time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{plans: p, gate: gate, cfg: cfg}
}

// Handle takes one posted event (the body of POST /api/v1/hooks/pi) and returns the answer:
// empty for every event but a plan (with a gate) or a question (with an Asker), for which it
// waits until a person decides or answers, the deadline passes or ctx ends. An empty answer
// leaves the plan or question to Pi's terminal. An error means the body was unusable or the
// store failed.
func (s *Service) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := Decode(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	if err := s.record(ctx, ev, "proposed"); err != nil {
		return nil, err
	}
	if s.cfg.Asker != nil {
		s.note(ctx, ev)
	}
	switch {
	case ev.Type == EventPlan && s.gate != nil:
		return s.hold(ctx, ev)
	case ev.Type == EventQuestion && s.cfg.Asker != nil:
		return s.ask(ctx, ev)
	}
	return nil, nil
}

// Captures reports whether body is an event that needs no answer: the server may acknowledge
// it before it is recorded.
func (s *Service) Captures(body []byte) bool {
	ev, err := Decode(body)
	return err == nil && ev.Type != EventPlan && ev.Type != EventQuestion
}

// record translates ev and applies it.
func (s *Service) record(ctx context.Context, ev Event, planState string) error {
	key := SessionKey(ev.SessionID)
	announce := !s.seen.Has(key)
	msgs := Translate(ev, announce, s.cfg.Host, planState)
	return s.recorder().Record(ctx, &s.seen, key, ev.Type, msgs)
}

// recorder applies what the Service translated.
func (s *Service) recorder() agentkit.Recorder {
	return agentkit.Recorder{Plans: s.plans, Log: s.cfg.Log, Name: "pi", Hook: "pi"}
}

// hold submits a submit_plan plan and waits for its decision.
func (s *Service) hold(ctx context.Context, ev Event) ([]byte, error) {
	// Should Pi stop waiting (the tool was aborted, or Pi quit), the extension asks in the
	// terminal if it still can; nobody rejected the plan here: Hold hands it over.
	r, err := s.holding().Hold(ctx, s.gate, s.submission(ev))
	if err != nil {
		return nil, err
	}
	a := decision(r)
	state := "rejected"
	if a.Decision == "approved" {
		state = "approved"
	}
	if a.Decision != "" {
		if err := s.record(context.WithoutCancel(ctx), ev, state); err != nil {
			s.cfg.Log.Warn("pi: record the plan's outcome", "session", SessionKey(ev.SessionID), "err", err)
		}
	}
	return json.Marshal(a)
}

// decision turns the gate's outcome into the extension's answer.
func decision(r approval.Request) Answer {
	d := r.Decision
	switch {
	case d == nil || d.By == TerminalDecider && !d.Expired:
		return Answer{}
	case d.Expired:
		return Answer{Decision: "rejected", Message: "Nobody approved the plan in plandash before its deadline. Do not implement it; ask the user how to proceed."}
	case r.Status == approval.Approved:
		msg := "The user approved the plan in plandash. Implement it now."
		if c := strings.TrimSpace(d.Comment); c != "" {
			msg += "\n\nTheir comment: " + c
		}
		return Answer{Decision: "approved", Message: msg}
	case r.Status == approval.Modified:
		var b strings.Builder
		b.WriteString("The user edited your plan in plandash and approved the edited plan. Implement this plan, not your own:\n\n")
		if d.Plan != nil {
			b.WriteString(d.Plan.Markdown)
		}
		if c := strings.TrimSpace(d.Comment); c != "" {
			b.WriteString("\n\nTheir comment: " + c)
		}
		return Answer{Decision: "approved", Message: b.String()}
	}
	msg := "The user rejected the plan in plandash."
	if why := strings.TrimSpace(d.Reason()); why != "" {
		msg += " Their reason:\n\n" + why
	}
	return Answer{Decision: "rejected", Message: msg + "\n\nRevise the plan and submit it again."}
}

// submission is the gate request for a submit_plan call.
func (s *Service) submission(ev Event) approval.Submission {
	md := hookkit.Truncate(ev.Plan, maxPlan)
	if strings.TrimSpace(md) == "" {
		md = "_Pi submitted an empty plan._"
	}
	host := ev.Host
	if host == "" {
		host = s.cfg.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Pi is waiting for this plan to be approved in `%s` on %s (session `%s`).\n\n",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(host, 256), hookkit.Truncate(ev.SessionID, 256))
	b.WriteString("- **Approve**: Pi implements the plan.\n")
	b.WriteString("- **Modify**: Pi implements your edited plan instead.\n")
	b.WriteString("- **Reject**: Pi does not implement it; your reason is sent to it, and it revises the plan.\n\n")
	b.WriteString("If nobody decides before the deadline, the plan is rejected.")
	sub := approval.Submission{
		SessionID: SessionKey(ev.SessionID), Agent: AgentTitle, Title: planTitle(md), Context: b.String(),
		Plan:    approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md},
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject},
		Timeout: approval.Duration(s.cfg.Deadline), Default: approval.Reject,
	}
	if ev.CallID != "" {
		// A retried post of the same call finds the same request.
		h := sha256.Sum256([]byte(ev.SessionID + "\x00" + ev.CallID))
		sub.ID = "pi-" + hex.EncodeToString(h[:16])
	}
	return sub
}

// planTitle is the plan's first heading, or a generic title.
func planTitle(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return hookkit.Truncate("Plan: "+t, approval.MaxTitle-10)
		}
	}
	return "Pi plan"
}

// holding is how the Service holds its plans at the gate.
func (s *Service) holding() agentkit.Holding {
	return agentkit.Holding{Log: s.cfg.Log, Hook: "pi", Agent: AgentTitle, Stopped: ExtensionStopped}
}

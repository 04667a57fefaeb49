package codex

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// Gate is what the Service uses of approval.Gate.
type Gate interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
}

// Config tunes the Service.
type Config struct {
	// Host names the machine when the hook did not say; os.Hostname when empty.
	Host string
	// Deadline is how long a plan waits at the gate before Codex simply goes on; 12h when zero.
	// Keep it under the hook's timeout in hooks.json.
	Deadline time.Duration
	// Log receives what went wrong without failing the hook; slog.Default when nil.
	Log *slog.Logger
	// Asker keeps Codex's questions and sessions waiting for their next prompt; nil: neither
	// is listed, and questions are left to the terminal.
	Asker Asker
	// QuestionDeadline is how long a question waits for an answer in plandash before Codex's
	// picker asks it in the terminal; 10 minutes when zero.
	QuestionDeadline time.Duration
}

// HookDecider is the channel a request is handed to when the hook stopped waiting.
const HookDecider = "codex-hook"

// TerminalDecides is what happens when plandash does not decide (the deadline, or the hook gave
// up): the turn ends with the plan as it is, and the person at Codex's terminal decides what
// comes next. Neither the gate's default nor any outcome plandash could record.
const TerminalDecides = "Codex's terminal decides"

// Service handles Codex hook events (POST /api/v1/hooks/codex): it names the session in the
// domain, holds the turn's plan at the gate (Stop), holds request_user_input until the person
// answers it (PreToolUse), and lists a session whose turn ended as waiting for its next prompt.
// It is safe for concurrent use.
type Service struct {
	apply ApplyFunc
	gate  Gate // nil: the plan is not held
	cfg   Config
}

// NewService makes a Service that records through apply (ApplyTo(plans.Service, log)) and
// holds plans at gate (may be nil).
func NewService(apply ApplyFunc, gate Gate, cfg Config) *Service {
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
	return &Service{apply: apply, gate: gate, cfg: cfg}
}

// Handle takes one hook payload and returns the hook's answer: for Stop, empty unless the
// turn's plan was rejected or changes were requested, in which case it is the block JSON
// (Answer); for request_user_input's PreToolUse, the person's answers (QuestionAnswer) or
// nothing. It waits while the plan is at the gate or the question unanswered, until a
// decision, the deadline, or ctx ends. The plan comes
// from plandash_plan (added by `plandash hook codex`) or a <proposed_plan> block in
// last_assistant_message; the server never reads the transcript path it is sent.
func (s *Service) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := DecodeHookEvent(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	if ev.SessionID == "" {
		return nil, errs.Errorf(errs.Invalid, "codex hook payload: session_id is missing")
	}
	if ev.Plan == nil {
		if md, ok := ProposedPlan(ev.LastAssistantMessage); ok {
			ev.Plan = &TurnPlan{Kind: "markdown", Markdown: md}
		}
	}
	tr := NewTranslator("", cmpOr(ev.Host, s.cfg.Host))
	tr.Resume(ev.SessionID, ev.Cwd)
	if err := s.apply(ctx, tr.Translate(nil)); err != nil {
		return nil, err
	}
	if s.cfg.Asker != nil {
		s.note(ctx, ev)
		if IsQuestionEvent(ev) {
			return s.ask(ctx, ev)
		}
	}
	if ev.HookEventName != EventStop {
		return nil, nil
	}
	answer, err := s.gatePlan(ctx, ev)
	if err == nil && len(answer) == 0 && s.cfg.Asker != nil {
		s.beginInput(ctx, ev) // the turn ends: Codex waits for the person
	}
	return answer, err
}

// gatePlan holds the turn's plan, if it made one, at the gate.
func (s *Service) gatePlan(ctx context.Context, ev HookEvent) ([]byte, error) {
	if ev.Plan.Empty() || s.gate == nil {
		return nil, nil
	}
	r, _, err := s.gate.Submit(ctx, s.submission(ev))
	if err != nil {
		return nil, err
	}
	id := r.ID // Wait returns an empty request when ctx ends
	for !r.Decided() {
		r, err = s.gate.Wait(ctx, id, time.Minute)
		if ctx.Err() != nil {
			s.close(ctx, id)
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, err
		}
	}
	return Answer(decision(r)), nil
}

// close hands a request whose hook stopped waiting (Codex's timeout, or the user interrupted
// the turn) to Codex's terminal: plandash's answer no longer reaches Codex, and nobody rejected
// the plan, so it is not recorded as rejected.
func (s *Service) close(ctx context.Context, id string) {
	_, err := s.gate.HandOver(context.WithoutCancel(ctx), id, HookDecider, "the Codex hook stopped waiting; "+TerminalDecides+" — outcome not known yet")
	if err != nil {
		s.cfg.Log.Warn("codex hook: close request", "request", id, "err", err)
	}
}

// decision turns the gate's outcome into the hook's. Approval, and a request handed to the
// terminal (its deadline passed, or the hook gave up) let the turn end; a rejection or an edit
// blocks it with feedback.
func decision(r approval.Request) Decision {
	d := r.Decision
	if d == nil || d.Expired || d.By == HookDecider {
		return Decision{}
	}
	switch r.Status {
	case approval.Approved:
		return Decision{}
	case approval.Modified:
		var b strings.Builder
		b.WriteString("The user edited your plan in plandash. Revise your plan to this, then present it again:\n\n")
		if d.Plan != nil {
			b.WriteString(planText(*d.Plan))
		}
		if c := strings.TrimSpace(d.Comment); c != "" {
			b.WriteString("\n\nTheir comment: " + c)
		}
		return Decision{Block: true, Reason: b.String()}
	}
	reason := strings.TrimSpace(d.Comment)
	if len(d.Feedback) > 0 {
		return Decision{Block: true, Reason: d.Reason()} // the review says what to change, entry by entry
	}
	if reason == "" {
		reason = "The user rejected your plan in plandash. Make a different plan."
	} else {
		reason = "The user asked for changes to your plan in plandash: " + reason
	}
	return Decision{Block: true, Reason: reason}
}

// planText is an edited plan as the model reads it: the markdown, or the checklist.
func planText(p approval.PlanBody) string {
	if strings.TrimSpace(p.Markdown) != "" {
		return p.Markdown
	}
	var b strings.Builder
	for _, e := range p.Entries {
		fmt.Fprintf(&b, "- [%s] %s\n", e.Status, e.Content)
	}
	return b.String()
}

// submission is the gate request for a turn's plan. At the deadline the request answers
// nothing (see decision): the turn ends and Codex's terminal decides (Then), so the request is
// handed there rather than recorded as the default (reject).
func (s *Service) submission(ev HookEvent) approval.Submission {
	body := approval.PlanBody{Type: approval.TypeMarkdown, Markdown: ev.Plan.Markdown}
	title := "Codex plan"
	if ev.Plan.Kind == "items" {
		body = approval.PlanBody{Type: approval.TypeItems, Entries: ev.Plan.Entries()}
	} else if h := firstHeading(ev.Plan.Markdown); h != "" {
		title = hookkit.Truncate("Plan: "+h, approval.MaxTitle-10)
	}
	var c strings.Builder
	fmt.Fprintf(&c, "Codex finished a turn with this plan in `%s` on %s (thread `%s`).\n\n",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(cmpOr(ev.Host, s.cfg.Host), 256), hookkit.Truncate(ev.SessionID, 256))
	if ev.Plan.Explanation != "" {
		fmt.Fprintf(&c, "Codex's explanation: %s\n\n", hookkit.Truncate(ev.Plan.Explanation, 4096))
	}
	c.WriteString("- **Approve**: the turn ends as it is.\n")
	c.WriteString("- **Modify**: Codex is asked, in the same turn, to revise its plan to your edit.\n")
	c.WriteString("- **Reject**: your comment goes to Codex as feedback, and it revises the plan in the same turn.\n\n")
	c.WriteString("Codex's terminal waits meanwhile. If nobody decides before the deadline, Codex goes on.")
	return approval.Submission{
		SessionID: SessionKey(ev.SessionID), Agent: AgentTitle, Title: title, Context: c.String(), Plan: body,
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject},
		Timeout: approval.Duration(s.cfg.Deadline), Default: approval.Reject, Then: TerminalDecides,
	}
}

func firstHeading(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return t
		}
	}
	return ""
}

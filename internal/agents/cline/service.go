package cline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
)

// Applier is what the Service uses of plans.Service.
type Applier interface {
	Apply(ctx context.Context, st *plans.Stream, items []plans.Item) (plans.Result, error)
	Plan(ctx context.Context, sessionID, planID string) (plans.Plan, error)
}

// Gate is what the Service uses of approval.Gate.
type Gate interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
}

// Asker keeps the waits plandash holds itself (waits.Asked): here, sessions waiting for their
// next prompt.
type Asker = waits.Asker

// HookLimit is how long Cline lets a PreToolUse hook run before it kills it and lets the call
// go on (@cline/core hook-file-hooks: toolCallTimeoutMs, 120000 by default, not configurable
// from the CLI).
const HookLimit = 120 * time.Second

// DefaultDeadline is how long switch_to_act_mode waits at the gate: under HookLimit, so that
// plandash, not Cline's timeout, ends the wait, and an undecided plan stays in plan mode.
const DefaultDeadline = 100 * time.Second

// Config tunes the Service.
type Config struct {
	// Host names the machine when the hook did not say; os.Hostname when empty.
	Host string
	// Deadline is how long switch_to_act_mode waits at the gate; DefaultDeadline when zero. It
	// must stay under HookLimit.
	Deadline time.Duration
	// Asker lists sessions waiting for their next prompt; nil: they are not listed.
	Asker Asker
	// Log receives what went wrong without failing the hook; slog.Default when nil.
	Log *slog.Logger
}

// TerminalDecider is who decisions made in Cline's terminal are recorded under.
const TerminalDecider = agentkit.TerminalDecider

// HookStopped is what a request says once the hook stopped waiting for plandash's answer.
const HookStopped = "the Cline hook stopped waiting — outcome not known"

// maxSeen bounds the sessions known to have ended; it is forgotten when full, which costs one
// more closing of a session's waits.
const maxSeen = 4096

// Service handles Cline hook events against the real domain. It is safe for concurrent use.
type Service struct {
	plans Applier
	gate  Gate // nil: plans are only recorded
	cfg   Config

	seen agentkit.Seen
	mu   sync.Mutex
	over map[string]bool // sessions whose last event was SessionShutdown
}

// NewService makes a Service. gate may be nil to record without holding anything.
func NewService(p Applier, gate Gate, cfg Config) *Service {
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.Deadline <= 0 || cfg.Deadline >= HookLimit {
		cfg.Deadline = DefaultDeadline
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{plans: p, gate: gate, cfg: cfg, over: map[string]bool{}}
}

// Handle takes one hook payload (the body of POST /api/v1/hooks/cline) and returns the hook's
// answer: empty for every event but PreToolUse of switch_to_act_mode, for which it waits until
// the person decides, the deadline passes or ctx ends, and then answers with Answer's output.
// An error means the payload was unusable or the store failed; the hook then prints nothing.
func (s *Service) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := Decode(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	st := State{}
	switch {
	case IsGateEvent(ev) && s.gate != nil:
		st.PlanState, st.Plan = "proposed", hookkit.Truncate(ev.Plan, maxPlan)
		if strings.TrimSpace(st.Plan) == "" {
			st.Plan = s.lastPlan(ctx, ev)
		}
	case ev.HookName == HookTaskComplete && ev.Mode == "plan" && ev.Turn != nil:
		// Cline runs this hook detached: it may arrive after the plan was already held at the
		// gate (and decided), which it must not reset to "presented".
		st.SkipPlan = s.lastPlan(ctx, ev) == hookkit.Truncate(ev.Turn.OutputText, maxPlan)
	}
	if err := s.record(ctx, ev, st); err != nil {
		return nil, err
	}
	if s.cfg.Asker != nil {
		s.note(ctx, ev)
	}
	if !IsGateEvent(ev) || s.gate == nil {
		return nil, nil
	}
	return s.hold(ctx, ev, st.Plan)
}

// Captures reports whether body is an event that needs no answer (everything but a plan at the
// gate): the server may acknowledge it before it is recorded.
func (s *Service) Captures(body []byte) bool {
	ev, err := Decode(body)
	return err == nil && !IsGateEvent(ev)
}

// lastPlan is the plan the session's last plan-mode turn presented, as recorded.
func (s *Service) lastPlan(ctx context.Context, ev Event) string {
	p, err := s.plans.Plan(ctx, SessionKey(ev.SessionID()), PlanMode)
	if err != nil {
		if errs.KindOf(err) != errs.NotFound {
			s.cfg.Log.Warn("cline hook: read the session's plan", "session", SessionKey(ev.SessionID()), "err", err)
		}
		return ""
	}
	return p.Markdown
}

// record translates ev and applies it.
func (s *Service) record(ctx context.Context, ev Event, st State) error {
	key := SessionKey(ev.SessionID())
	st.Announce, st.Host = !s.seen.Has(key), s.cfg.Host
	msgs := Translate(ev, st)
	return agentkit.Recorder{Plans: s.plans, Log: s.cfg.Log, Name: "cline", Hook: "cline hook"}.Record(ctx, &s.seen, key, ev.HookName, msgs)
}

// hold submits the plan switch_to_act_mode would implement and waits for its decision.
func (s *Service) hold(ctx context.Context, ev Event, plan string) ([]byte, error) {
	// Should the hook give up (Cline's timeout, or Cline quit), what Cline did without an
	// answer is not known here, and nobody rejected the plan: Hold hands it over.
	r, err := s.holding().Hold(ctx, s.gate, s.submission(ev, plan))
	if err != nil {
		return nil, err
	}
	d := decision(r)
	state := "rejected"
	if !d.Cancel {
		state = "approved"
	}
	st := State{PlanState: state, Plan: plan}
	if err := s.record(context.WithoutCancel(ctx), ev, st); err != nil {
		s.cfg.Log.Warn("cline hook: record the plan's outcome", "session", SessionKey(ev.SessionID()), "err", err)
	}
	return Answer(d), nil
}

// submission is the gate request for switch_to_act_mode.
func (s *Service) submission(ev Event, plan string) approval.Submission {
	md := plan
	if strings.TrimSpace(md) == "" {
		md = "_Cline asks to switch to act mode; plandash saw no plan-mode answer before it._"
	}
	host := ev.Host
	if host == "" {
		host = s.cfg.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Cline asks to leave plan mode and implement its plan in `%s` on %s (session `%s`).\n\n",
		hookkit.Truncate(ev.Cwd(), 1024), hookkit.Truncate(host, 256), hookkit.Truncate(ev.SessionID(), 256))
	b.WriteString("- **Approve**: Cline switches to act mode and implements the plan.\n")
	b.WriteString("- **Modify**: Cline switches to act mode and is told to implement your edited plan.\n")
	b.WriteString("- **Reject**: Cline's run stops and it stays in plan mode; tell it in the terminal how to go on.\n\n")
	fmt.Fprintf(&b, "Cline waits at most %s for a hook: if nobody decides sooner, the plan is rejected and Cline stays in plan mode.", HookLimit)
	return approval.Submission{
		SessionID: SessionKey(ev.SessionID()), Agent: AgentTitle, Title: planTitle(md), Context: b.String(),
		Plan:    approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md},
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject},
		Timeout: approval.Duration(s.cfg.Deadline), Default: approval.Reject,
	}
}

// planTitle is the plan's first heading, or a generic title.
func planTitle(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return hookkit.Truncate("Plan: "+t, approval.MaxTitle-10)
		}
	}
	return "Cline plan"
}

// Decision is how PreToolUse of switch_to_act_mode is answered. A zero Decision lets the call
// go on: the hook prints nothing.
type Decision struct {
	// Cancel stops Cline's run before the call: Cline stays in plan mode. Reason is shown as
	// the stop's reason.
	Cancel bool
	Reason string
	// Context is added to the conversation when the call goes on: the edited plan, a comment.
	Context string
}

// decision turns the gate's outcome into the hook's.
func decision(r approval.Request) Decision {
	d := r.Decision
	switch {
	case d == nil:
		return Decision{Cancel: true, Reason: "plandash reached no decision on the plan"}
	case d.Expired:
		return Decision{Cancel: true, Reason: "Nobody approved the plan in plandash in time; Cline stays in plan mode."}
	case r.Status == approval.Approved:
		var c string
		if t := strings.TrimSpace(d.Comment); t != "" {
			c = "The user approved the plan in plandash. Their comment: " + t
		}
		return Decision{Context: c}
	case r.Status == approval.Modified:
		var b strings.Builder
		b.WriteString("The user edited your plan in plandash and approved the edited plan. Implement this plan, not your own:\n\n")
		if d.Plan != nil {
			b.WriteString(d.Plan.Markdown)
		}
		if t := strings.TrimSpace(d.Comment); t != "" {
			b.WriteString("\n\nTheir comment: " + t)
		}
		return Decision{Context: b.String()}
	}
	reason := "The user rejected the plan in plandash."
	if why := strings.TrimSpace(d.Reason()); why != "" {
		reason += " Their reason: " + why
	}
	return Decision{Cancel: true, Reason: reason}
}

// MaxContext is Cline's cap on a hook's added context (@cline/core MAX_HOOK_CONTEXT_SIZE).
const MaxContext = 50000

// Answer is the hook's output for d, as Cline reads it: nothing to go on,
// {"cancel":true,"errorMessage":…} to stop, {"contextModification":…} to go on with context.
func Answer(d Decision) []byte {
	var v map[string]any
	switch {
	case d.Cancel:
		v = map[string]any{"cancel": true, "errorMessage": hookkit.Truncate(d.Reason, MaxContext)}
	case strings.TrimSpace(d.Context) != "":
		v = map[string]any{"contextModification": hookkit.Truncate(d.Context, MaxContext-8)}
	default:
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

// CheckAnswer reports whether b is output the hook may print: empty, or one of the shapes
// Answer makes. The hook command checks what the server sent, so a garbled or foreign answer is
// never handed to Cline.
func CheckAnswer(b []byte) error {
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	var v struct {
		Cancel              *bool   `json:"cancel"`
		ErrorMessage        *string `json:"errorMessage"`
		ContextModification *string `json:"contextModification"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the answer is not a hook answer plandash makes: %w", err)
	}
	switch {
	case v.Cancel != nil && *v.Cancel && v.ContextModification == nil:
		return nil
	case v.Cancel == nil && v.ErrorMessage == nil && v.ContextModification != nil:
		return nil
	}
	return errors.New("the answer is neither a cancel nor added context")
}

// holding is how the Service holds its plans at the gate.
func (s *Service) holding() agentkit.Holding {
	return agentkit.Holding{Log: s.cfg.Log, Hook: "cline hook", Agent: AgentTitle, Stopped: HookStopped}
}

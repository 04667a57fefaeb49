package claude

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/plans"
)

// Applier is what the Service uses of plans.Service: applying a batch, and reading a session's
// plans back (for the incremental tasks plan).
type Applier interface {
	Apply(ctx context.Context, st *plans.Stream, items []plans.Item) (plans.Result, error)
	Session(ctx context.Context, id string) (plans.SessionDetail, error)
}

// Gate is what the Service uses of approval.Gate.
type Gate interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	Decide(ctx context.Context, id string, in approval.DecisionInput) (approval.Request, error)
	Pending(ctx context.Context) ([]approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
	Settle(ctx context.Context, id string, in approval.DecisionInput) (approval.Request, error)
	Elsewhere(ctx context.Context) ([]approval.Request, error)
}

// Config tunes the Service.
type Config struct {
	// Host names the machine when the hook did not say (the hook command sends its own).
	// os.Hostname when empty.
	Host string
	// PlanDirs are the directories a plan file the event names (when Claude Code did not inject
	// the plan itself) may be read from: the server's allowed roots and ~/.claude/plans. None
	// when empty. The event's cwd never widens them.
	PlanDirs files.PlanDirs
	// Deadline is how long a plan waits at the gate before the terminal alone decides; 12h when
	// zero. Keep it under the hook's timeout in settings.json.
	Deadline time.Duration
	// ApproveMode is the permission mode an approval switches to when the person's comment does
	// not choose one: ModeDefault when empty.
	ApproveMode string
	// Log receives what went wrong without failing the hook; slog.Default when nil.
	Log *slog.Logger
	// Asker keeps questions (AskUserQuestion, answered in plandash) and sessions waiting for
	// their next prompt; nil keeps neither.
	Asker Asker
	// QuestionDeadline is how long a question waits for plandash's answer before the terminal
	// asks it; 30m when zero.
	QuestionDeadline time.Duration
}

// TerminalDecider is who decisions that close a request answered in the terminal are recorded
// under.
const TerminalDecider = agentkit.TerminalDecider

// AnsweredInTerminal is what a request says between the terminal's answer (Claude Code stopped
// the gate's hook) and the event that shows what it was.
const AnsweredInTerminal = "answered in the terminal — outcome not known yet"

// maxSeen bounds the set of sessions already announced; it is forgotten when full, which only
// costs one more announcement per session.
const maxSeen = 4096

// Service handles Claude Code hook events against the real domain: it records them as ACP
// updates, and holds plan-mode plans at the gate. It is safe for concurrent use.
type Service struct {
	plans Applier
	gate  Gate // nil: no gate, plan prompts are only recorded
	cfg   Config

	// mu serialises read-translate-apply, because task events change the stored tasks plan
	// incrementally and hooks run concurrently.
	mu      sync.Mutex
	seen    map[string]bool
	prompts map[string]string // pending request id → the prompt_id it was asked in
}

// NewService makes a Service. gate may be nil to record plan prompts without holding them.
func NewService(p Applier, gate Gate, cfg Config) *Service {
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 12 * time.Hour
	}
	if cfg.ApproveMode == "" {
		cfg.ApproveMode = ModeDefault
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.QuestionDeadline <= 0 {
		cfg.QuestionDeadline = defaultQuestionDeadline
	}
	return &Service{plans: p, gate: gate, cfg: cfg, seen: map[string]bool{}, prompts: map[string]string{}}
}

// Handle takes one hook payload (the body of POST /api/v1/hooks/claude) and returns the hook's
// answer: empty for every event but a plan prompt, for which it waits until the person decides,
// the deadline passes or ctx ends. An error means the payload was unusable or the store failed;
// the hook then prints nothing and the terminal decides.
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
		s.noteInput(ctx, ev)
		if IsQuestionEvent(ev) {
			return s.ask(ctx, ev)
		}
	}
	if s.gate == nil {
		return nil, nil
	}
	if closed, approved := ClosedInTerminal(ev); closed {
		s.closeStale(ctx, ev, approved)
	}
	if !IsGateEvent(ev) {
		return nil, nil
	}
	return s.hold(ctx, ev)
}

// record translates ev and applies it.
func (s *Service) record(ctx context.Context, ev Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := SessionKey(ev.SessionID)
	st := State{Announce: !s.seen[key], Host: s.cfg.Host}
	if ev.Host != "" {
		st.Host = ev.Host
	}
	if isTaskEvent(ev) {
		d, err := s.plans.Session(ctx, key)
		if err != nil && errs.KindOf(err) != errs.NotFound {
			return err
		}
		for _, p := range d.Plans {
			if p.ID == PlanTasks && !p.Removed {
				st.Tasks = TasksFromEntries(p.Entries)
			}
		}
	}
	msgs, err := Translate(ev, st)
	if err != nil {
		return errs.Errorf(errs.Invalid, "%v", err)
	}
	if err := s.apply(ctx, msgs, "claude hook: update not applied", "session", key, "event", ev.HookEventName); err != nil {
		return err
	}
	if len(s.seen) >= maxSeen {
		clear(s.seen)
	}
	s.seen[key] = true
	return nil
}

// apply applies one batch of translated messages on a stream of its own; messages the domain
// refuses one by one are logged with what (and its key-value pairs), only a store failure is
// returned.
func (s *Service) apply(ctx context.Context, msgs []json.RawMessage, what string, args ...any) error {
	res, err := agentkit.Apply(ctx, s.plans, "claude", msgs)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		s.cfg.Log.Warn(what, append(args, "line", e.Line, "err", e.Message)...)
	}
	return nil
}

func isTaskEvent(ev Event) bool {
	switch ev.HookEventName {
	case EventTaskCreated, EventTaskCompleted:
		return true
	case EventPostToolUse:
		return ev.ToolName == ToolTaskCreate || ev.ToolName == ToolTaskUpdate
	}
	return false
}

// closeStale records the outcome of the session's plan requests that the terminal answered
// (handed over when Claude Code stopped the hook, or at the deadline) or that are still
// pending, so the inbox does not offer a decision that can no longer reach Claude. Failures are
// logged only: the event itself was recorded.
func (s *Service) closeStale(ctx context.Context, ev Event, approved bool) {
	pending, err := s.gate.Pending(ctx)
	if err != nil {
		s.cfg.Log.Warn("claude hook: list pending requests", "err", err)
		return
	}
	handed, err := s.gate.Elsewhere(ctx)
	if err != nil {
		s.cfg.Log.Warn("claude hook: list requests answered in the terminal", "err", err)
		return
	}
	key := SessionKey(ev.SessionID)
	for _, r := range append(pending, handed...) {
		if r.SessionID != key || r.Agent != AgentTitle {
			continue
		}
		s.mu.Lock()
		asked, held := s.prompts[r.ID] // held: a hook here still waits on it
		s.mu.Unlock()
		// An async UserPromptSubmit of the very turn that asked may arrive after the prompt.
		if ev.HookEventName == EventUserPromptSubmit && ev.PromptID != "" && ev.PromptID == asked {
			continue
		}
		why := "answered in the terminal — approved"
		if !approved {
			why = "answered in the terminal — declined (" + terminalSign(ev) + ")"
		}
		if !approved && (r.Status == approval.Elsewhere || held) {
			// Claude Code runs these hooks async: the PostToolUse that says the plan was
			// approved in the terminal can arrive just after the turn's Stop. A handed-over
			// request is declined only once that moment has passed without it (Settle refuses
			// a request settled meanwhile). So is one a hook here still holds: Claude Code
			// stopped that hook to take the terminal's answer, and the Stop came before the
			// hook's end was seen and the request handed over.
			id := r.ID
			time.AfterFunc(lateEventGrace, func() { s.closeRequest(context.WithoutCancel(ctx), id, false, why) })
			continue
		}
		s.closeRequest(ctx, r.ID, approved, why)
	}
}

// lateEventGrace is how long a handed-over request waits, after an event that says its plan was
// declined, for an async event of the same turn that says it was approved.
const lateEventGrace = 2 * time.Second

// terminalSign says what in ev showed that a plan prompt was answered no in the terminal, for
// the decision's comment: a person reading it, or a failing test, learns which event closed it.
func terminalSign(ev Event) string {
	switch ev.HookEventName {
	case EventUserPromptSubmit:
		return "a new prompt was sent"
	case EventStop:
		return "the turn ended"
	case EventSessionEnd:
		return "the session ended"
	case EventPermissionRequest:
		return "Claude Code put up a new plan"
	}
	return ev.HookEventName
}

func (s *Service) closeRequest(ctx context.Context, id string, approved bool, why string) {
	in := approval.DecisionInput{Action: approval.Reject, By: TerminalDecider, Comment: why + "; plandash's answer no longer reaches Claude"}
	if approved {
		in.Action, in.Comment = approval.Approve, why+": Claude Code went ahead with the plan"
	}
	_, err := s.gate.Settle(context.WithoutCancel(ctx), id, in)
	var de *approval.DecidedError
	if err != nil && !errors.As(err, &de) {
		s.cfg.Log.Warn("claude hook: close request", "request", id, "err", err)
	}
}

// hold submits the plan and waits for its decision.
func (s *Service) hold(ctx context.Context, ev Event) ([]byte, error) {
	pr := NewPlanRequest(ev, s.cfg.PlanDirs)
	if pr.Unreadable != "" {
		s.cfg.Log.Warn("claude hook: plan file refused", "session", pr.SessionID, "path", hookkit.Truncate(pr.FilePath, 1024), "err", pr.Unreadable)
	}
	// The prompt is remembered under the same lock as the Submit: closeStale, which finds the
	// request through Pending, then always sees which prompt asked it, even when the turn's own
	// async UserPromptSubmit arrives in the instant after the Submit.
	s.mu.Lock()
	r, _, err := s.gate.Submit(ctx, s.submission(ev, pr))
	if err == nil {
		s.prompts[r.ID] = ev.PromptID
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	id := r.ID
	defer func() {
		s.mu.Lock()
		delete(s.prompts, id)
		s.mu.Unlock()
	}()
	for !r.Decided() {
		r, err = s.gate.Wait(ctx, id, time.Minute)
		if ctx.Err() != nil {
			// The hook was stopped: the person answered in the terminal's own dialog (or Claude
			// Code's hook timeout put that dialog up). What they answered is not known yet, and
			// recording "rejected" now would be false when they approved; yet plandash's answer
			// can no longer reach Claude. So the request is handed over, outcome unknown, until
			// the session's next event says (closeStale): the plan went ahead (approved), or the
			// turn ended or a new prompt began (declined).
			if _, err := s.gate.HandOver(context.WithoutCancel(ctx), id, TerminalDecider, AnsweredInTerminal); err != nil {
				s.cfg.Log.Warn("claude hook: record the answer in the terminal", "request", id, "err", err)
			}
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, err
		}
	}
	return Answer(s.decision(r, pr)), nil
}

// decision turns the gate's outcome into the hook's: a request handed to the terminal at its
// deadline (no decision), an expired one or one closed in the terminal is no decision, so the
// terminal decides.
func (s *Service) decision(r approval.Request, pr PlanRequest) Decision {
	d := r.Decision
	if d == nil || d.Expired || d.By == TerminalDecider {
		return Decision{}
	}
	switch r.Status {
	case approval.Approved:
		return Decision{Behavior: "allow", Mode: modeFrom(d.Comment, s.cfg.ApproveMode), Input: pr.Input}
	case approval.Modified:
		edited := ""
		if d.Plan != nil {
			edited = d.Plan.Markdown
		}
		return ApproveEdited(pr.Input, edited, modeFrom(d.Comment, s.cfg.ApproveMode))
	}
	// A review reaches Claude whole: every comment with the text it was made on.
	return Decision{Behavior: "deny", Message: d.Reason()}
}

// modeFrom reads "mode: acceptEdits" or "mode: default" from an approval comment: the gate has
// no named options yet, so this is how a person picks the terminal's two ways of approving.
func modeFrom(comment, fallback string) string {
	for _, line := range strings.Split(comment, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "mode") {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "acceptedits", "accept-edits", "auto-accept edits", "auto":
			return ModeAcceptEdits
		case "default", "manual", "manually approve edits":
			return ModeDefault
		}
	}
	return fallback
}

// Captures reports whether body is an event that needs no answer (everything but a plan at the
// gate and a question): the server may acknowledge it before it is recorded, so the hook never
// waits on the database.
func (s *Service) Captures(body []byte) bool {
	ev, err := Decode(body)
	return err == nil && ev.SessionID != "" && !Waits(ev)
}

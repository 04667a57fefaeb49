package gemini

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/files"
)

// Applier is what the Service uses of plans.Service.
type Applier = agentkit.Applier

// Gate is what the Service uses of approval.Gate.
type Gate = agentkit.Gate

// Config tunes the Service.
type Config struct {
	// Host names the machine when the hook did not say. os.Hostname when empty.
	Host string
	// PlanDirs are the directories plan files may be read from when the hook did not send the
	// plan: the server's allowed roots and ~/.gemini/tmp, where Gemini keeps its plans
	// directories. None when empty. They come from the configuration only: an event's cwd or
	// plans directory never widens them.
	PlanDirs files.PlanDirs
	// Deadline is how long a plan waits at the gate; 12h when zero. Keep it under the hook's
	// timeout in settings.json (milliseconds there).
	Deadline time.Duration
	// Log receives what went wrong without failing the hook; slog.Default when nil.
	Log *slog.Logger
	// Asker keeps Gemini CLI's questions and sessions waiting for their next prompt; nil:
	// neither is listed, and questions are left to the terminal.
	Asker Asker
	// QuestionDeadline is how long a question waits for an answer in plandash before Gemini
	// CLI's dialog asks it in the terminal; 10 minutes when zero.
	QuestionDeadline time.Duration
}

// TerminalDecider is who decisions that close a request answered elsewhere are recorded under.
const TerminalDecider = agentkit.TerminalDecider

// Service handles Gemini CLI hook events against the real domain: it records them as ACP
// updates, and holds exit_plan_mode plans at the gate. It is safe for concurrent use.
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

// Handle takes one hook payload (the body of POST /api/v1/hooks/gemini) and returns the hook's
// answer: empty for every event but BeforeTool of exit_plan_mode, for which it waits until the
// person decides, the deadline passes or ctx ends, and then returns empty (go ahead) or a deny,
// and BeforeTool of ask_user, for which it waits likewise for the person's answers
// (QuestionAnswer) or returns empty (the dialog asks).
// An error means the payload was unusable or the store failed; the hook then prints nothing.
func (s *Service) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := Decode(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	if ev.SessionID == "" {
		return nil, errs.Errorf(errs.Invalid, "%v", ErrNoSession)
	}
	var plan PlanText
	if ev.ToolName == ToolExitPlanMode {
		plan = s.readPlan(ev)
	}
	if err := s.record(ctx, ev, plan); err != nil {
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
	return s.hold(ctx, ev, plan)
}

// readPlan finds exit_plan_mode's plan: as the hook sent it, or read here from the plans
// directory (the hook's, or the one Gemini keeps next to the transcript) when the file lies
// under Config.PlanDirs. A refusal is logged and shown instead of the plan.
func (s *Service) readPlan(ev Event) PlanText {
	if ev.Plan != "" {
		return PlanText{Markdown: hookkit.Truncate(ev.Plan, MaxPlanFile), Path: ev.PlanPath}
	}
	dir := ev.PlansDir
	if dir == "" && ev.TranscriptPath != "" {
		dir = filepath.Join(filepath.Dir(filepath.Dir(ev.TranscriptPath)), ev.SessionID, "plans")
	}
	path := ResolvePlanPath(PlanFilename(ev.ToolInput), dir, ev.Cwd)
	if path == "" {
		return PlanText{Unreadable: "the hook named no plan file plandash could find"}
	}
	md, err := s.cfg.PlanDirs.Read(path, MaxPlanFile)
	if err != nil {
		s.cfg.Log.Warn("gemini hook: plan file refused", "session", SessionKey(ev.SessionID), "path", hookkit.Truncate(path, 1024), "err", err)
		return PlanText{Path: path, Unreadable: err.Error()}
	}
	return PlanText{Markdown: string(md), Path: path}
}

// record translates ev and applies it.
func (s *Service) record(ctx context.Context, ev Event, plan PlanText) error {
	key := SessionKey(ev.SessionID)
	st := State{Announce: !s.seen.Has(key), Host: s.cfg.Host, Plan: plan}
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
	return agentkit.Recorder{Plans: s.plans, Log: s.cfg.Log, Name: "gemini", Hook: "gemini hook"}
}

// endsTurn reports whether ev shows that no plan of its session can still be waiting for the
// hook: the turn or the session is over, or a new prompt began.
func endsTurn(ev Event) bool {
	switch ev.HookEventName {
	case EventAfterAgent, EventBeforeAgent, EventSessionEnd:
		return true
	}
	return false
}

// HookStopped is what a request says once the hook stopped waiting for plandash's answer.
const HookStopped = "the Gemini CLI hook stopped waiting — outcome not known yet"

// closeStale decides the session's pending plan requests, so the inbox does not offer a
// decision that can no longer reach Gemini CLI. Failures are logged only.
func (s *Service) closeStale(ctx context.Context, ev Event) {
	s.holding().CloseStale(ctx, s.gate, SessionKey(ev.SessionID))
}

// hold submits the plan and waits for its decision.
func (s *Service) hold(ctx context.Context, ev Event, plan PlanText) ([]byte, error) {
	// Should the hook give up (its timeout, or Gemini CLI was stopped), nobody answers into
	// the void, but nobody rejected the plan either, and what Gemini CLI did without an
	// answer (a hook that timed out lets the call go on) is not known here: Hold hands it over.
	r, err := s.holding().Hold(ctx, s.gate, s.submission(ev, plan))
	if err != nil {
		return nil, err
	}
	return Answer(decision(r)), nil
}

// decision turns the gate's outcome into the hook's. With plandash's policy installed Gemini
// CLI shows no dialog of its own, so an expired request keeps its default outcome (reject):
// the model is told nobody approved, and stays in plan mode.
func decision(r approval.Request) Decision {
	d := r.Decision
	if d == nil {
		return Decision{}
	}
	if d.Expired && r.Status == approval.Rejected {
		return Decision{Deny: true, Reason: "Nobody approved the plan in plandash before its deadline. Stay in plan mode and ask the user how to proceed."}
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
	return Decision{Deny: true, Reason: d.Reason()}
}

// submission is the gate request for an exit_plan_mode call.
func (s *Service) submission(ev Event, plan PlanText) approval.Submission {
	md := plan.Markdown
	if strings.TrimSpace(md) == "" {
		md = "_Gemini CLI's plan file could not be read"
		if plan.Unreadable != "" {
			md += ": " + plan.Unreadable
		}
		md += "._"
	}
	host := ev.Host
	if host == "" {
		host = s.cfg.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Gemini CLI is waiting in plan mode in `%s` on %s (session `%s`).\n\n",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(host, 256), hookkit.Truncate(ev.SessionID, 256))
	if plan.Path != "" {
		fmt.Fprintf(&b, "Plan file: `%s`\n\n", hookkit.Truncate(plan.Path, 1024))
	}
	b.WriteString("- **Approve**: Gemini CLI leaves plan mode and starts implementing.\n")
	b.WriteString("- **Modify**: Gemini is asked to rewrite its plan to your edited text.\n")
	b.WriteString("- **Reject**: Gemini stays in plan mode; your reason is sent to it.\n\n")
	b.WriteString("If nobody decides before the deadline, the plan is rejected and Gemini stays in plan mode.")
	return approval.Submission{
		SessionID: SessionKey(ev.SessionID), Agent: AgentTitle, Title: planTitle(md), Context: b.String(),
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
	return "Gemini CLI plan"
}

// Captures reports whether body is an event that needs no answer (everything but a plan at the
// gate or a question): the server may acknowledge it before it is recorded.
func (s *Service) Captures(body []byte) bool {
	ev, err := Decode(body)
	return err == nil && ev.SessionID != "" && !IsGateEvent(ev) && !IsQuestionEvent(ev)
}

// holding is how the Service holds its plans at the gate.
func (s *Service) holding() agentkit.Holding {
	return agentkit.Holding{Log: s.cfg.Log, Hook: "gemini hook", Agent: AgentTitle, Stopped: HookStopped}
}

package gemini

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/files"
)

// Poster sends one hook payload to plandash (POST /api/v1/hooks/gemini) and returns the answer
// body. wait is true for exit_plan_mode's BeforeTool, whose answer comes only once a person
// decided: the client must then allow a long response time.
type Poster = hookkit.Poster

// HookOptions tunes RunHook.
type HookOptions struct {
	// Host is added to the payload as plandash_host, so a dashboard on another machine knows
	// where the agent runs. Nothing is added when empty.
	Host string
	// PlansDir is Gemini CLI's plans directory, which it gives its hooks as $GEMINI_PLANS_DIR.
	// The plan file of an exit_plan_mode call is read from it here, on the agent's machine, and
	// sent along (plandash_plan), so a dashboard elsewhere sees the plan.
	PlansDir string
	// CaptureTimeout bounds reading stdin and posting an event nobody waits on; 5s when zero.
	CaptureTimeout time.Duration
	// GateTimeout bounds the wait for a decision; 12h when zero. Keep it under the hook's
	// timeout in settings.json, so plandash, not Gemini CLI, ends the wait.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil (a hook's stderr shows in Gemini
	// CLI, so the command stays quiet by default).
	Log *slog.Logger
	// Stderr is told why, when the gate could not reach a decision and left it to Gemini CLI's
	// own dialog; discarded when nil.
	Stderr io.Writer
}

// RunHook is the core of `plandash hook gemini`: it reads one event from stdin, posts it, and
// for exit_plan_mode's BeforeTool prints the decision (nothing to approve, a deny to reject);
// for ask_user's it prints the person's answers, or nothing when there are none (the dialog
// asks).
// It never fails the agent. A capture that goes wrong (unreadable event, server down or slow)
// prints nothing and returns nil, so Gemini CLI goes on as if plandash were not there. A gate
// event that gets no decision (server down, throttled, failing or slow, a refused token, an
// answer of the wrong shape) is never let through: with plandash's policy installed, printing
// nothing would approve the plan with nobody asked, so the hook stops the turn and leaves the
// plan to the person at the terminal (see Undecided), and says why on Stderr.
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post Poster, opts HookOptions) error {
	hookkit.Run(ctx, stdin, stdout, post, hookkit.Spec{
		Agent: "gemini", MaxEvent: MaxEventBytes,
		CaptureTimeout: opts.CaptureTimeout, GateTimeout: opts.GateTimeout, Log: opts.Log, Stderr: opts.Stderr,
		Prepare: func(_ context.Context, body []byte, _ *slog.Logger) (hookkit.Post, error) {
			ev, err := Decode(body)
			if err != nil {
				return hookkit.Post{}, err
			}
			p := hookkit.Post{Kind: hookkit.Capture, Body: enrich(ev, opts), Name: ev.HookEventName}
			switch {
			case IsQuestionEvent(ev):
				p.Kind, p.Check = hookkit.Wait, CheckQuestionAnswer
			case IsGateEvent(ev):
				p.Kind, p.Check, p.Fallback = hookkit.Wait, CheckAnswer, askPerson
			}
			return p, nil
		},
	})
	return nil
}

// askPerson is the gate's answer when plandash reached no decision: the one that leaves the plan
// to the person, and why.
func askPerson(m hookkit.Miss) ([]byte, string) {
	why := m.Reason("plan")
	return Undecided(why + ". Nobody approved this plan in plandash: Gemini CLI stays in plan mode; review the plan and tell it how to go on."), why + "; the plan is left to you"
}

// enrich adds what only the agent's machine knows: its name, and for exit_plan_mode the plans
// directory and the plan file read from it.
func enrich(ev Event, opts HookOptions) []byte {
	add := map[string]any{}
	if opts.Host != "" && ev.Host == "" {
		add["plandash_host"] = opts.Host
	}
	if ev.ToolName == ToolExitPlanMode && opts.PlansDir != "" && ev.Plan == "" {
		add["plandash_plans_dir"] = opts.PlansDir
		if path := ResolvePlanPath(PlanFilename(ev.ToolInput), opts.PlansDir, ev.Cwd); path != "" {
			if md, err := (files.PlanDirs{opts.PlansDir}).Read(path, MaxPlanFile); err == nil {
				add["plandash_plan"], add["plandash_plan_path"] = string(md), path
			}
		}
	}
	return hookkit.AddFields(ev.Raw, add)
}

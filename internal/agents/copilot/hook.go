package copilot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/files"
)

// HookOptions tunes RunHook.
type HookOptions struct {
	// Event is the hook's event name, from $PLANDASH_COPILOT_EVENT (EnvEvent), which
	// plandash's install sets on each hook entry. When empty it is guessed from the payload.
	Event string
	// NoGate, from $PLANDASH_COPILOT_NO_GATE=1 (EnvNoGate), sends exit_plan_mode's plan as a
	// capture nobody holds: an install without --gate.
	NoGate bool
	// Host is added to the payload as plandash_host. Nothing is added when empty.
	Host string
	// CopilotHome is Copilot CLI's directory: $COPILOT_HOME, else ~/.copilot. The session's
	// todo list (session.db) and plan (plan.md) are read under it here, on the agent's
	// machine, and sent along, since the dashboard may run elsewhere. Nothing is read when
	// empty.
	CopilotHome string
	// CaptureTimeout bounds reading stdin and posting an event nobody waits on; 5s when zero.
	CaptureTimeout time.Duration
	// GateTimeout bounds the wait for a decision; 12h when zero. Keep it under the hook's
	// timeoutSec in settings.json, so plandash, not Copilot CLI, ends the wait.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil.
	Log *slog.Logger
	// Stderr is told why, when the gate reached no decision and left the plan to Copilot CLI's
	// own menu; discarded when nil.
	Stderr io.Writer
}

// RunHook is the core of `plandash hook copilot`: it reads one event from stdin, adds what only
// the agent's machine can read (the todo list after an sql call that touched it, plan.md for
// exit_plan_mode), posts it, and for exit_plan_mode's preToolUse prints the decision: nothing to
// let Copilot CLI's menu ask how to build, a deny carrying the person's feedback otherwise.
// For ask_user's preToolUse it prints the person's answer, or nothing (the dialog asks).
// preToolUse of other tools is not posted: only these two are held, and every tool call runs
// the hook.
// It never fails the agent. Anything that goes wrong prints nothing and returns nil: a capture
// is lost, and a plan without a decision goes on to Copilot CLI's own menu, so the person at
// the terminal decides (the reason is written to Stderr).
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post hookkit.Poster, opts HookOptions) error {
	if opts.CaptureTimeout <= 0 {
		opts.CaptureTimeout = hookkit.DefaultCaptureTimeout // enrich bounds the todo list's read by it
	}
	hookkit.Run(ctx, stdin, stdout, post, hookkit.Spec{
		Agent: "copilot", MaxEvent: MaxEventBytes,
		CaptureTimeout: opts.CaptureTimeout, GateTimeout: opts.GateTimeout, Log: opts.Log, Stderr: opts.Stderr,
		Prepare: func(ctx context.Context, body []byte, log *slog.Logger) (hookkit.Post, error) {
			ev, err := Decode(body)
			if err != nil {
				return hookkit.Post{}, err
			}
			if opts.Event != "" {
				ev.HookEventName = opts.Event
			}
			ev.NoGate = ev.NoGate || opts.NoGate
			if ev.HookEventName == EventPreToolUse && ev.ToolName != ToolExitPlanMode && ev.ToolName != ToolAskUser {
				return hookkit.Post{Kind: hookkit.Skip}, nil
			}
			if ev.HookEventName == EventPermissionRequest && (ev.NoGate || inSessionFolder(ev, opts.CopilotHome)) {
				// The prompt asks (or, for the session's own files such as plan.md, Copilot lets
				// it through unasked); nothing to record that postToolUse will not say.
				return hookkit.Post{Kind: hookkit.Skip}, nil
			}
			p := hookkit.Post{Kind: hookkit.Capture, Body: enrich(ctx, ev, opts, log), Name: ev.HookEventName}
			switch {
			case IsQuestionEvent(ev):
				p.Kind, p.Check = hookkit.Wait, CheckQuestionAnswer
			case IsPermissionEvent(ev):
				p.Kind, p.Check, p.Fallback = hookkit.Wait, CheckPermissionAnswer, promptAsks
			case IsGateEvent(ev):
				p.Kind, p.Check, p.Fallback = hookkit.Wait, CheckAnswer, menuAsks
			}
			return p, nil
		},
	})
	return nil
}

// promptAsks is a permission's answer when plandash reached no decision: nothing, so Copilot
// CLI's own prompt asks, and why.
func promptAsks(m hookkit.Miss) ([]byte, string) {
	return nil, fmt.Sprintf("no decision from plandash (%v); Copilot CLI's prompt asks you", m.Err)
}

// menuAsks is the plan's answer when plandash reached no decision: nothing, so Copilot CLI's own
// menu asks, and why.
func menuAsks(m hookkit.Miss) ([]byte, string) {
	return nil, m.Reason("plan") + "; Copilot CLI's menu asks you instead"
}

// enrich adds the event's name and what only the agent's machine knows: its name, the todo list
// after an sql call that touched it, and plan.md for exit_plan_mode; it drops tool results,
// which plandash does not show.
func enrich(ctx context.Context, ev Event, opts HookOptions, log *slog.Logger) []byte {
	add := map[string]any{"plandash_event": ev.HookEventName}
	if ev.NoGate {
		add["plandash_no_gate"] = true
	}
	if opts.Host != "" && ev.Host == "" {
		add["plandash_host"] = opts.Host
	}
	dir := SessionDir(opts.CopilotHome, ev.SessionID)
	switch {
	case dir == "":
	case ev.HookEventName == EventPostToolUse && ev.ToolName == ToolSQL && TouchesTodos(ev.ToolArgs):
		rctx, cancel := context.WithTimeout(ctx, opts.CaptureTimeout)
		todos, err := ReadTodos(rctx, filepath.Join(dir, "session.db"))
		cancel()
		if err != nil {
			log.Warn("plandash hook copilot: read the todo list", "err", err)
		} else {
			add["plandash_todos"] = todos
		}
	case ev.ToolName == ToolExitPlanMode && ev.Plan == "":
		path := filepath.Join(dir, "plan.md")
		if md, err := (files.PlanDirs{dir}).Read(path, MaxPlanFile); err == nil {
			add["plandash_plan"], add["plandash_plan_path"] = string(md), path
		} else {
			log.Warn("plandash hook copilot: read plan.md", "err", err)
		}
	}
	if ev.HookEventName == EventPostToolUse && ev.ToolName != ToolAskUser {
		// The dashboard shows a tool call by its title: its result (the project's code, a
		// command's output) stays on this machine. ask_user's answer is kept: it is shown.
		add["toolResult"] = map[string]string{"resultType": ev.ResultType}
	}
	return hookkit.AddFields(ev.Raw, add)
}

// inSessionFolder reports whether a permission request is for a file in Copilot CLI's own
// session folder (plan.md, written in plan mode): Copilot asks its permissionRequest hook about
// those too, but never the person, so plandash does not hold them.
func inSessionFolder(ev Event, copilotHome string) bool {
	dir := SessionDir(copilotHome, ev.SessionID)
	if dir == "" {
		return false
	}
	for _, k := range []string{"file_path", "path"} {
		if p := argString(ev.ToolArgs, k); p != "" && filepath.IsAbs(p) {
			rel, err := filepath.Rel(dir, filepath.Clean(p))
			return err == nil && filepath.IsLocal(rel)
		}
	}
	return false
}

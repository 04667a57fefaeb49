package copilot

import (
	"bytes"
	"context"
	"encoding/json"
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
		opts.CaptureTimeout = 5 * time.Second
	}
	if opts.GateTimeout <= 0 {
		opts.GateTimeout = 12 * time.Hour
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	body, err := hookkit.ReadEvent(ctx, stdin, MaxEventBytes, opts.CaptureTimeout)
	if err != nil {
		log.Warn("plandash hook copilot: no event read", "err", err)
		return nil
	}
	ev, err := Decode(body)
	if err != nil {
		log.Warn("plandash hook copilot: not a hook event", "err", err)
		return nil
	}
	if opts.Event != "" {
		ev.HookEventName = opts.Event
	}
	ev.NoGate = ev.NoGate || opts.NoGate
	if ev.HookEventName == EventPreToolUse && ev.ToolName != ToolExitPlanMode && ev.ToolName != ToolAskUser {
		return nil
	}
	if ev.HookEventName == EventPermissionRequest && (ev.NoGate || inSessionFolder(ev, opts.CopilotHome)) {
		// The prompt asks (or, for the session's own files such as plan.md, Copilot lets it
		// through unasked); nothing to record that postToolUse will not say.
		return nil
	}
	body = enrich(ctx, ev, opts, log)
	if IsQuestionEvent(ev) {
		if err := hookkit.Ask(ctx, post, body, opts.GateTimeout, CheckQuestionAnswer, stdout, opts.Stderr, "copilot"); err != nil {
			log.Warn("plandash hook copilot: " + err.Error())
		}
		return nil
	}
	if IsPermissionEvent(ev) {
		pctx, cancel := context.WithTimeout(ctx, opts.GateTimeout)
		defer cancel()
		answer, err := post.Post(pctx, body, true)
		if err == nil {
			err = CheckPermissionAnswer(answer)
		}
		if err != nil {
			if opts.Stderr != nil {
				fmt.Fprintf(opts.Stderr, "plandash hook copilot: no decision from plandash (%v); Copilot CLI's prompt asks you\n", err)
			}
			return nil
		}
		if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
			log.Warn("plandash hook copilot: write answer", "err", err)
		}
		return nil
	}
	gate := IsGateEvent(ev)
	limit := opts.CaptureTimeout
	if gate {
		limit = opts.GateTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	answer, err := post.Post(pctx, body, gate)
	switch {
	case err != nil && !gate:
		log.Warn("plandash hook copilot: post failed; Copilot CLI goes on", "event", ev.HookEventName, "err", err)
		return nil
	case !gate:
		return nil
	case err != nil:
		toTerminal(opts.Stderr, "plandash could not get a decision on this plan: "+err.Error())
		return nil
	}
	if err := CheckAnswer(answer); err != nil {
		toTerminal(opts.Stderr, "plandash's answer on this plan was unusable: "+err.Error())
		return nil
	}
	if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
		log.Warn("plandash hook copilot: write answer", "err", err)
	}
	return nil
}

// toTerminal says on stderr why Copilot CLI's own menu asks.
func toTerminal(stderr io.Writer, why string) {
	if stderr != nil {
		fmt.Fprintf(stderr, "plandash hook copilot: %s; Copilot CLI's menu asks you instead\n", why)
	}
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
	var m map[string]json.RawMessage
	if json.Unmarshal(ev.Raw, &m) != nil {
		return ev.Raw // Decode accepted it as an object: cannot happen
	}
	if ev.HookEventName == EventPostToolUse && ev.ToolName != ToolAskUser {
		// The dashboard shows a tool call by its title: its result (the project's code, a
		// command's output) stays on this machine. ask_user's answer is kept: it is shown.
		m["toolResult"], _ = json.Marshal(map[string]string{"resultType": ev.ResultType})
	}
	for k, v := range add {
		m[k], _ = json.Marshal(v)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return ev.Raw
	}
	return out
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

package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
		log.Warn("plandash hook: no event read", "err", err)
		return nil
	}
	ev, err := Decode(body)
	if err != nil {
		log.Warn("plandash hook: not a hook event", "err", err)
		return nil
	}
	body = enrich(ev, opts)
	if IsQuestionEvent(ev) {
		if err := hookkit.Ask(ctx, post, body, opts.GateTimeout, CheckQuestionAnswer, stdout, opts.Stderr, "gemini"); err != nil {
			log.Warn("plandash hook gemini: " + err.Error())
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
		log.Warn("plandash hook: post failed; Gemini CLI goes on", "event", ev.HookEventName, "err", err)
		return nil
	case !gate:
		return nil
	case err != nil:
		answer = askPerson(opts.Stderr, "plandash could not get a decision on this plan: "+err.Error())
	default:
		if err := CheckAnswer(answer); err != nil {
			answer = askPerson(opts.Stderr, "plandash's answer on this plan was unusable: "+err.Error())
		}
	}
	if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
		log.Warn("plandash hook: write answer", "err", err)
	}
	return nil
}

// askPerson says why on stderr and returns the answer that leaves the plan to the person.
func askPerson(stderr io.Writer, why string) []byte {
	if stderr != nil {
		fmt.Fprintf(stderr, "plandash hook gemini: %s; the plan is left to you\n", why)
	}
	return Undecided(why + ". Nobody approved this plan in plandash: Gemini CLI stays in plan mode; review the plan and tell it how to go on.")
}

// enrich adds what only the agent's machine knows: its name, and for exit_plan_mode the plans
// directory and the plan file read from it.
func enrich(ev Event, opts HookOptions) []byte {
	add := map[string]string{}
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
	if len(add) == 0 {
		return ev.Raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(ev.Raw, &m) != nil {
		return ev.Raw // Decode accepted it as an object: cannot happen
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

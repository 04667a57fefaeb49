package qwen

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// HookOptions tunes RunHook.
type HookOptions struct {
	// Host is added to the payload as plandash_host, so a dashboard on another machine knows
	// where the agent runs. Nothing is added when empty.
	Host string
	// CaptureTimeout bounds reading stdin and posting an event nobody waits on; 5s when zero.
	CaptureTimeout time.Duration
	// GateTimeout bounds the wait for a decision or an answer; 12h when zero. Keep it under the
	// hook's timeout in settings.json, so plandash, not Qwen Code, ends the wait.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil.
	Log *slog.Logger
	// Stderr is told why, when the gate could not reach a decision and left it to Qwen Code's
	// own dialog; discarded when nil.
	Stderr io.Writer
}

// RunHook is the core of `plandash hook qwen`: it reads one event from stdin, posts it, and
// for exit_plan_mode's PermissionRequest prints the decision (nothing to let Qwen Code's dialog
// ask, a deny to reject); for ask_user_question's it prints the person's answers, or nothing
// (the dialog asks).
// It never fails the agent, and never lets anything through that nobody approved: whatever
// goes wrong (unreadable event, server down, throttled or slow, an answer of the wrong shape)
// prints nothing and returns nil, and Qwen Code goes on as if plandash were not there, its own
// dialog asking where it would have asked anyway.
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post hookkit.Poster, opts HookOptions) error {
	hookkit.Run(ctx, stdin, stdout, post, hookkit.Spec{
		Agent: "qwen", MaxEvent: MaxEventBytes,
		CaptureTimeout: opts.CaptureTimeout, GateTimeout: opts.GateTimeout, Log: opts.Log, Stderr: opts.Stderr,
		Prepare: func(_ context.Context, body []byte, _ *slog.Logger) (hookkit.Post, error) {
			ev, err := Decode(body)
			if err != nil {
				return hookkit.Post{}, err
			}
			p := hookkit.Post{Kind: hookkit.Capture, Body: enrich(ev, opts.Host), Name: ev.HookEventName}
			switch {
			case IsQuestionEvent(ev):
				p.Kind, p.Check = hookkit.Wait, CheckQuestionAnswer
			case IsGateEvent(ev):
				p.Kind, p.Check, p.Fallback = hookkit.Wait, CheckAnswer, dialogDecides
			}
			return p, nil
		},
	})
	return nil
}

// dialogDecides is the plan gate's answer without a decision from plandash: nothing, so Qwen
// Code's own dialog asks (a hook cannot approve exit_plan_mode anyway).
func dialogDecides(m hookkit.Miss) ([]byte, string) {
	return nil, m.Reason("plan") + "; Qwen Code's dialog asks"
}

// enrich adds the agent's machine name, when known and not there yet.
func enrich(ev Event, host string) []byte {
	if host == "" || ev.Host != "" {
		return ev.Raw
	}
	return hookkit.AddFields(ev.Raw, map[string]any{"plandash_host": host})
}

package droid

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// Poster sends one hook payload to plandash (POST /api/v1/hooks/droid) and returns the answer
// body; wait is true for a spec at the gate or a question, whose answer comes only once a
// person decided.
type Poster = hookkit.Poster

// HookOptions tunes RunHook.
type HookOptions struct {
	// Host is added to the payload as plandash_host, so a dashboard on another machine knows
	// where the agent runs. Nothing is added when empty.
	Host string
	// CaptureTimeout bounds reading stdin and posting an event nobody waits on; 5s when zero.
	CaptureTimeout time.Duration
	// GateTimeout bounds the wait for a decision; 12h when zero. Keep it under the hook's
	// timeout in settings.json, so plandash, not Droid, ends the wait.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil.
	Log *slog.Logger
	// Stderr is told why, when the gate could not reach a decision and left it to Droid's own
	// dialog; discarded when nil.
	Stderr io.Writer
}

// RunHook is the core of `plandash hook droid`: it reads one event from stdin, posts it, and
// for ExitSpecMode's PreToolUse prints the decision; for AskUser's it prints the person's
// answers, or nothing (the dialog asks).
// It never fails the agent. A capture that goes wrong (unreadable event, server down or slow)
// prints nothing and returns nil, so Droid goes on as if plandash were not there. A spec that
// gets no decision (server down, failing or slow, an answer of the wrong shape) is never let
// through: the hook answers "ask", so Droid shows its own dialog, and says why on Stderr.
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post Poster, opts HookOptions) error {
	hookkit.Run(ctx, stdin, stdout, post, hookkit.Spec{
		Agent: "droid", MaxEvent: MaxEventBytes,
		CaptureTimeout: opts.CaptureTimeout, GateTimeout: opts.GateTimeout, Log: opts.Log, Stderr: opts.Stderr,
		Prepare: func(_ context.Context, body []byte, _ *slog.Logger) (hookkit.Post, error) {
			ev, err := Decode(body)
			if err != nil {
				return hookkit.Post{}, err
			}
			p := hookkit.Post{Kind: hookkit.Capture, Body: withHost(ev, opts.Host), Name: ev.HookEventName}
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

// askPerson is the gate's answer when plandash reached no decision: "ask", which leaves the spec
// to the person in Droid's own dialog, and why.
func askPerson(m hookkit.Miss) ([]byte, string) {
	why := m.Reason("spec")
	return Undecided(hookkit.Truncate(why, 2048)), why + "; the spec is left to you"
}

// withHost adds plandash_host to the payload when the hook knows the machine and Droid did not
// say.
func withHost(ev Event, host string) []byte {
	if host == "" || ev.Host != "" {
		return ev.Raw
	}
	return hookkit.AddFields(ev.Raw, map[string]any{"plandash_host": host})
}

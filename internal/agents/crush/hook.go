package crush

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// HookOptions tunes RunHook.
type HookOptions struct {
	// Host is added to the payload as plandash_host. Nothing is added when empty.
	Host string
	// CaptureTimeout bounds reading stdin and posting an event nobody waits on; 5s when zero.
	CaptureTimeout time.Duration
	// QuestionTimeout bounds the wait for a person's answers or decision; 12h when zero (the
	// server's deadlines, minutes, come first). Keep it under the hook's timeout in crush.json.
	QuestionTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil.
	Log *slog.Logger
	// Stderr is told why, when a question got no answer from plandash and Crush's dialog asks;
	// discarded when nil.
	Stderr io.Writer
}

// RunHook is the core of `plandash hook crush`: it reads one PreToolUse event from stdin and
// posts it; for a question call it prints the person's answers (a deny carrying them), for a
// call Crush asks permission for (hooked with install --gate) the person's allow or deny, or
// nothing, which Crush reads as "no opinion": its own dialog or prompt asks.
// It never fails the agent: anything that goes wrong prints nothing and returns nil.
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post hookkit.Poster, opts HookOptions) error {
	hookkit.Run(ctx, stdin, stdout, post, hookkit.Spec{
		Agent: "crush", MaxEvent: MaxEventBytes,
		CaptureTimeout: opts.CaptureTimeout, GateTimeout: opts.QuestionTimeout, Log: opts.Log, Stderr: opts.Stderr,
		Prepare: func(_ context.Context, body []byte, _ *slog.Logger) (hookkit.Post, error) {
			ev, err := Decode(body)
			if err != nil {
				return hookkit.Post{}, err
			}
			if opts.Host != "" && ev.Host == "" {
				body = hookkit.AddFields(ev.Raw, map[string]any{"plandash_host": opts.Host})
			}
			p := hookkit.Post{Kind: hookkit.Capture, Body: body, Name: ev.ToolName}
			switch {
			case IsQuestionEvent(ev):
				p.Kind, p.Check = hookkit.Wait, CheckQuestionAnswer
			case IsPermissionEvent(ev):
				p.Kind, p.Check, p.Fallback = hookkit.Wait, CheckPermissionAnswer, promptAsks
			}
			return p, nil
		},
	})
	return nil
}

// promptAsks is a held call's answer when plandash reached no decision: nothing, so Crush's own
// prompt asks, and why.
func promptAsks(m hookkit.Miss) ([]byte, string) {
	return nil, fmt.Sprintf("no decision from plandash (%v); Crush's prompt asks you", m.Err)
}

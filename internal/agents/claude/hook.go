package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// Poster sends one hook payload to plandash (POST /api/v1/hooks/claude) and returns the
// answer body. wait is true for the plan prompt, whose answer comes only once a person decided:
// the client must then allow a long response time.
type Poster = hookkit.Poster

// HookOptions tunes RunHook.
type HookOptions struct {
	// Host is added to the payload as plandash_host, so a dashboard on another machine knows
	// where the agent runs. Nothing is added when empty.
	Host string
	// CaptureTimeout bounds reading stdin and posting an event nobody waits on; 5s when zero.
	// Capture hooks run async, but a stuck one still holds a process.
	CaptureTimeout time.Duration
	// GateTimeout bounds the wait for a decision on a plan prompt; 12h when zero. Keep it under
	// the hook's timeout in settings.json, so plandash, not Claude Code, ends the wait.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil (stderr of a hook shows in Claude
	// Code's transcript, so the command stays quiet by default).
	Log *slog.Logger
	// Stderr is told why, when the gate could not reach a decision and left it to Claude
	// Code's own dialog; discarded when nil.
	Stderr io.Writer
}

// RunHook is the core of `plandash hook claude`: it reads one event from stdin, posts it, and
// for a plan prompt prints the decision. It never fails the agent: on any problem (unreadable
// event, server down or slow, an answer of the wrong shape) it prints nothing and returns nil,
// so the hook exits 0 at once and Claude Code goes on as if plandash were not there. For the
// plan prompt, no decision is "ask": Claude Code shows its own plan dialog (a PermissionRequest
// hook has no explicit ask; printing nothing is it), and Stderr is told why.
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post Poster, opts HookOptions) error {
	hookkit.Run(ctx, stdin, stdout, post, hookkit.Spec{
		Agent: "claude", MaxEvent: MaxEventBytes,
		CaptureTimeout: opts.CaptureTimeout, GateTimeout: opts.GateTimeout, Log: opts.Log, Stderr: opts.Stderr,
		Prepare: func(_ context.Context, body []byte, _ *slog.Logger) (hookkit.Post, error) {
			ev, err := Decode(body)
			if err != nil {
				return hookkit.Post{}, err
			}
			if opts.Host != "" && ev.Host == "" {
				body = withHost(body, opts.Host)
			}
			p := hookkit.Post{Kind: hookkit.Capture, Body: body, Name: ev.HookEventName}
			if Waits(ev) { // a plan at the gate or a question: the answer is printed
				p.Kind, p.Check, p.Fallback = hookkit.Wait, CheckAnswer, askPerson
				if IsQuestionEvent(ev) {
					p.Check = CheckQuestionAnswer
				}
			}
			return p, nil
		},
	})
	return nil
}

// askPerson is the gate's answer when plandash reached no decision: nothing, so Claude Code's
// own dialog decides, and why.
func askPerson(m hookkit.Miss) ([]byte, string) {
	return nil, m.Reason("plan") + "; Claude Code asks you instead"
}

// withHost adds plandash_host as the payload's first member. body is a JSON object (Decode
// accepted it), so splicing after its opening brace keeps it valid.
func withHost(body []byte, host string) []byte {
	t := bytes.TrimSpace(body)
	rest := bytes.TrimSpace(t[1:])
	h, _ := json.Marshal(host)
	out := make([]byte, 0, len(t)+len(h)+20)
	out = append(out, `{"plandash_host":`...)
	out = append(out, h...)
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	if opts.Host != "" && ev.Host == "" {
		body = withHost(body, opts.Host)
	}
	gate := Waits(ev) // a plan at the gate or a question: the answer is printed
	limit := opts.CaptureTimeout
	if gate {
		limit = opts.GateTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	answer, err := post.Post(pctx, body, gate)
	if err != nil {
		log.Warn("plandash hook: post failed; the terminal decides", "event", ev.HookEventName, "err", err)
		if gate {
			askPerson(opts.Stderr, "plandash could not get a decision on this plan: "+err.Error())
		}
		return nil
	}
	if !gate {
		return nil
	}
	check := CheckAnswer
	if IsQuestionEvent(ev) {
		check = CheckQuestionAnswer
	}
	if err := check(answer); err != nil {
		log.Warn("plandash hook: unusable answer; the terminal decides", "err", err)
		askPerson(opts.Stderr, "plandash's answer on this plan was unusable: "+err.Error())
		return nil
	}
	if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
		log.Warn("plandash hook: write answer", "err", err)
	}
	return nil
}

// askPerson says on stderr why Claude Code's own dialog decides this plan.
func askPerson(stderr io.Writer, why string) {
	if stderr != nil {
		fmt.Fprintf(stderr, "plandash hook claude: %s; Claude Code asks you instead\n", why)
	}
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

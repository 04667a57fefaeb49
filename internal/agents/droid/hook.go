package droid

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
		log.Warn("plandash hook droid: no event read", "err", err)
		return nil
	}
	ev, err := Decode(body)
	if err != nil {
		log.Warn("plandash hook droid: not a hook event", "err", err)
		return nil
	}
	body = withHost(ev, opts.Host)
	if IsQuestionEvent(ev) {
		if err := hookkit.Ask(ctx, post, body, opts.GateTimeout, CheckQuestionAnswer, stdout, opts.Stderr, "droid"); err != nil {
			log.Warn("plandash hook droid: " + err.Error())
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
		log.Warn("plandash hook droid: post failed; Droid goes on", "event", hookkit.Truncate(ev.HookEventName, 64), "err", err)
		return nil
	case !gate:
		return nil
	case err != nil:
		answer = askPerson(opts.Stderr, "plandash could not get a decision on this spec: "+err.Error())
	default:
		if err := CheckAnswer(answer); err != nil {
			answer = askPerson(opts.Stderr, "plandash's answer on this spec was unusable: "+err.Error())
		}
	}
	if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
		log.Warn("plandash hook droid: write answer", "err", err)
	}
	return nil
}

// askPerson says why on stderr and returns the answer that leaves the spec to the person.
func askPerson(stderr io.Writer, why string) []byte {
	if stderr != nil {
		fmt.Fprintf(stderr, "plandash hook droid: %s; the spec is left to you\n", why)
	}
	return Undecided(hookkit.Truncate(why, 2048))
}

// withHost adds plandash_host to the payload when the hook knows the machine and Droid did not
// say.
func withHost(ev Event, host string) []byte {
	if host == "" || ev.Host != "" {
		return ev.Raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(ev.Raw, &m) != nil {
		return ev.Raw // Decode accepted it as an object: cannot happen
	}
	m["plandash_host"], _ = json.Marshal(host)
	out, err := json.Marshal(m)
	if err != nil {
		return ev.Raw
	}
	return out
}

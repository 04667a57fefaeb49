package qwen

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
		log.Warn("plandash hook qwen: no event read", "err", err)
		return nil
	}
	ev, err := Decode(body)
	if err != nil {
		log.Warn("plandash hook qwen: not a hook event", "err", err)
		return nil
	}
	body = enrich(ev, opts.Host)
	if IsQuestionEvent(ev) {
		if err := hookkit.Ask(ctx, post, body, opts.GateTimeout, CheckQuestionAnswer, stdout, opts.Stderr, "qwen"); err != nil {
			log.Warn("plandash hook qwen: " + err.Error())
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
	if err == nil && gate {
		err = CheckAnswer(answer)
	}
	switch {
	case err != nil && !gate:
		log.Warn("plandash hook qwen: post failed; Qwen Code goes on", "event", ev.HookEventName, "err", err)
		return nil
	case !gate:
		return nil
	case err != nil:
		if opts.Stderr != nil {
			fmt.Fprintf(opts.Stderr, "plandash hook qwen: no decision from plandash (%v); Qwen Code's dialog asks\n", err)
		}
		return nil
	}
	if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
		log.Warn("plandash hook qwen: write answer", "err", err)
	}
	return nil
}

// enrich adds the agent's machine name, when known and not there yet.
func enrich(ev Event, host string) []byte {
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

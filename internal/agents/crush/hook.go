package crush

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
	if opts.CaptureTimeout <= 0 {
		opts.CaptureTimeout = 5 * time.Second
	}
	if opts.QuestionTimeout <= 0 {
		opts.QuestionTimeout = 12 * time.Hour
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	body, err := hookkit.ReadEvent(ctx, stdin, MaxEventBytes, opts.CaptureTimeout)
	if err != nil {
		log.Warn("plandash hook crush: no event read", "err", err)
		return nil
	}
	ev, err := Decode(body)
	if err != nil {
		log.Warn("plandash hook crush: not a hook event", "err", err)
		return nil
	}
	if opts.Host != "" && ev.Host == "" {
		var m map[string]json.RawMessage
		if json.Unmarshal(ev.Raw, &m) == nil {
			m["plandash_host"], _ = json.Marshal(opts.Host)
			if b, err := json.Marshal(m); err == nil {
				body = b
			}
		}
	}
	if IsQuestionEvent(ev) {
		if err := hookkit.Ask(ctx, post, body, opts.QuestionTimeout, CheckQuestionAnswer, stdout, opts.Stderr, "crush"); err != nil {
			log.Warn("plandash hook crush: " + err.Error())
		}
		return nil
	}
	held := IsPermissionEvent(ev)
	limit := opts.CaptureTimeout
	if held {
		limit = opts.QuestionTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	answer, err := post.Post(pctx, body, held)
	if err == nil && held {
		err = CheckPermissionAnswer(answer)
	}
	switch {
	case err != nil && held:
		if opts.Stderr != nil {
			fmt.Fprintf(opts.Stderr, "plandash hook crush: no decision from plandash (%v); Crush's prompt asks you\n", err)
		}
	case err != nil:
		log.Warn("plandash hook crush: post failed; Crush goes on", "tool", ev.ToolName, "err", err)
	case held:
		if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
			log.Warn("plandash hook crush: write answer", "err", err)
		}
	}
	return nil
}

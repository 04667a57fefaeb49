package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// Poster sends one hook payload to plandash (POST /api/v1/hooks/codex) and returns the answer
// body. wait is true when the answer comes only once a person decided.
type Poster = hookkit.Poster

// HookOptions tunes RunHook.
type HookOptions struct {
	// Host is added to the payload as plandash_host. Nothing is added when empty.
	Host string
	// ReadTimeout bounds reading the event from stdin; 5s when zero.
	ReadTimeout time.Duration
	// GateTimeout bounds the wait for a decision; 12h when zero. Keep it under the hook's
	// timeout in hooks.json, so plandash, not Codex, ends the wait.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil.
	Log *slog.Logger
	// Stderr is told why, when the gate could not reach a decision and left the plan to the
	// person at the terminal; discarded when nil.
	Stderr io.Writer
}

// RunHook is the core of `plandash hook codex`, run by Codex's hooks: it reads the event from
// stdin and posts it to plandash (with plandash_host), printing the answer where Codex reads one.
//
// Stop: it finds the plan the turn produced (in last_assistant_message, else in the bounded tail
// of the rollout at transcript_path) and posts the event with the plan (as plandash_plan),
// waiting for the decision. Approval prints nothing (exit 0: the turn ends); a rejection or
// requested changes print {"decision":"block","reason":…}, so Codex revises in the same turn. A
// plan that gets no decision (plandash down, throttled, failing or slow, a refused token, an
// answer of the wrong shape) is not passed off as approved: the turn ends with a systemMessage
// telling the person plandash did not decide, so the plan is theirs to judge, and Stderr says
// why. A turn without a plan is posted without waiting (the session now waits for its next
// prompt).
//
// PreToolUse of request_user_input: it waits for the person's answers and prints them
// (QuestionAnswer); without an answer it prints nothing and Codex's picker asks. Other events
// (UserPromptSubmit, PostToolUse, SessionStart) are posted without waiting. It never fails the
// agent.
func RunHook(ctx context.Context, stdin io.Reader, stdout io.Writer, post Poster, opts HookOptions) error {
	hookkit.Run(ctx, stdin, stdout, post, hookkit.Spec{
		Agent: "codex", MaxEvent: MaxEventBytes,
		CaptureTimeout: opts.ReadTimeout, GateTimeout: opts.GateTimeout, Log: opts.Log, Stderr: opts.Stderr,
		Prepare: func(_ context.Context, body []byte, log *slog.Logger) (hookkit.Post, error) {
			return prepare(body, opts.Host, log)
		},
	})
	return nil
}

// prepare decodes a Codex hook event, adds the host and, for Stop, the plan the turn produced,
// and says whether the hook waits: for a question's answers, or for the decision on a plan.
func prepare(body []byte, host string, log *slog.Logger) (hookkit.Post, error) {
	ev, err := DecodeHookEvent(body)
	if err == nil && ev.SessionID == "" {
		err = errors.New("no session_id: not a Codex hook event")
	}
	if err != nil {
		return hookkit.Post{}, err
	}
	if ev.HookEventName == EventStop && ev.Plan == nil {
		if md, ok := ProposedPlan(ev.LastAssistantMessage); ok {
			ev.Plan = &TurnPlan{Kind: "markdown", Markdown: md}
		} else if ev.TranscriptPath != "" {
			p, ok, err := ReadTurnPlan(ev.TranscriptPath, ev.TurnID, MaxTranscriptTail)
			if err != nil {
				log.Warn("plandash hook codex: transcript unreadable", "path", ev.TranscriptPath, "err", err)
			}
			if ok {
				ev.Plan = &p
			}
		}
	}
	ev.Host = cmpOr(ev.Host, host)
	out, err := withFields(body, ev)
	if err != nil {
		return hookkit.Post{}, fmt.Errorf("event not re-encoded: %w", err)
	}
	p := hookkit.Post{Kind: hookkit.Capture, Body: out, Name: ev.HookEventName}
	switch {
	case IsQuestionEvent(ev):
		p.Kind, p.Check = hookkit.Wait, CheckQuestionAnswer
	case ev.HookEventName == EventStop && !ev.Plan.Empty():
		p.Kind, p.Check, p.Fallback = hookkit.Wait, CheckAnswer, leaveToPerson
	}
	return p, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// withFields sets plandash_host and plandash_plan (when there is a plan) on the payload, keeping
// every other field.
func withFields(body []byte, ev HookEvent) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	if ev.Plan != nil {
		p, err := json.Marshal(ev.Plan)
		if err != nil {
			return nil, err
		}
		m["plandash_plan"] = p
	}
	if ev.Host != "" {
		h, _ := json.Marshal(ev.Host)
		m["plandash_host"] = h
	}
	return json.Marshal(m)
}

// Decision is how the Stop hook answers. The zero Decision lets the turn end: approval, an
// expired request, or no decision at all.
type Decision struct {
	// Block keeps the turn going; Codex sends Reason to the model as the user's feedback.
	Block  bool
	Reason string
}

// Answer is the Stop hook's output for d, exactly as Codex reads it
// (stop.command.output.schema.json): nothing, or {"decision":"block","reason":…}.
func Answer(d Decision) []byte {
	if !d.Block {
		return nil
	}
	reason := strings.TrimSpace(d.Reason)
	if reason == "" {
		reason = "The plan was rejected in plandash. Revise it."
	}
	b, _ := json.Marshal(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", reason})
	return b
}

// leaveToPerson is the Stop hook's output when plandash reached no decision, which ends the turn
// with the plan left to the person, and why.
func leaveToPerson(m hookkit.Miss) ([]byte, string) {
	why := m.Reason("plan")
	return Undecided(why), why + "; the plan is left to you"
}

// Undecided is the Stop hook's output when plandash reached no decision: the turn ends (Codex
// then asks the person whether to implement the plan), with a systemMessage saying that
// plandash did not approve it, so nobody takes the silence for an approval.
func Undecided(why string) []byte {
	b, _ := json.Marshal(struct {
		SystemMessage string `json:"systemMessage"`
	}{why + ". Nobody approved this plan in plandash: review it yourself before implementing it."})
	return b
}

// CheckAnswer reports whether b is output the hook may print: empty, or a block with a reason.
// The hook checks what the server sent, so a garbled or foreign answer never reaches Codex.
func CheckAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	if v.Decision != "block" {
		return fmt.Errorf("the answer's decision %q is not block", v.Decision)
	}
	if strings.TrimSpace(v.Reason) == "" {
		return errors.New("a block answer needs a reason")
	}
	return nil
}

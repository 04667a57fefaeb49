package hookkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// The timeouts a Spec gets when it names none.
const (
	// DefaultCaptureTimeout bounds reading the event and posting one nobody waits on: capture
	// hooks often run async, but a stuck one still holds a process.
	DefaultCaptureTimeout = 5 * time.Second
	// DefaultGateTimeout bounds a wait on a person; an agent's install keeps its hook's own
	// timeout above it, so plandash, not the agent, ends the wait.
	DefaultGateTimeout = 12 * time.Hour
)

// Kind is what the runner does with one event.
type Kind int

const (
	// Skip posts nothing: the agent runs the hook for events plandash neither shows nor holds.
	Skip Kind = iota
	// Capture posts without waiting, under the capture timeout, and prints nothing.
	Capture
	// Wait posts and waits under the gate timeout for a person (a plan at the gate, a
	// permission, a question), then prints the answer, or the Fallback's when there is no
	// usable one.
	Wait
)

// Post is what an agent makes of one event: how to post it and, for a Wait, how to judge the
// answer.
type Post struct {
	Kind Kind
	// Body is what is posted: the event with what only the agent's machine knows added.
	Body []byte
	// Name names the event in the log (cut to 64 bytes).
	Name string
	// Check reports whether an answer is of the shape the agent reads (Wait); nil takes any.
	Check func(answer []byte) error
	// Fallback is the answer printed when a Wait got no usable decision, and why, said on
	// Stderr after "plandash hook AGENT: ". A nil answer prints nothing: for most agents that
	// is "let my own dialog ask". A nil Fallback prints nothing and says AskHere's reason.
	Fallback func(Miss) (answer []byte, why string)
}

// Miss is why a Wait got no usable decision.
type Miss struct {
	// Err is the post's error, or the Check's when Unusable.
	Err error
	// Unusable says an answer came but Check refused it.
	Unusable bool
}

// Reason says the miss in the words the gates share: "plandash could not get a decision on
// this plan: …" or "plandash's answer on this plan was unusable: …", with noun for "plan".
func (m Miss) Reason(noun string) string {
	if m.Unusable {
		return "plandash's answer on this " + noun + " was unusable: " + m.Err.Error()
	}
	return "plandash could not get a decision on this " + noun + ": " + m.Err.Error()
}

// AskHere is the Fallback of a question: nothing printed, so the agent's own dialog asks in
// the terminal.
func AskHere(m Miss) ([]byte, string) {
	return nil, fmt.Sprintf("no answer from plandash (%v); answer the question here", m.Err)
}

// Spec is one agent's hook: what the runner needs to know about it, and its own parts.
type Spec struct {
	// Agent names the agent in messages: "plandash hook AGENT: …".
	Agent string
	// MaxEvent is the largest event read from stdin, in bytes.
	MaxEvent int64
	// CaptureTimeout bounds reading the event and a Capture's post; DefaultCaptureTimeout
	// when zero or less.
	CaptureTimeout time.Duration
	// GateTimeout bounds a Wait's post; DefaultGateTimeout when zero or less.
	GateTimeout time.Duration
	// Log notes why nothing was printed; discarded when nil (a hook's stderr often shows in
	// the agent, so the command stays quiet by default).
	Log *slog.Logger
	// Stderr is told why, when a Wait got no usable decision; discarded when nil.
	Stderr io.Writer
	// Prepare decodes the event read from stdin and says what to do with it; an error means
	// it is not an event of this agent's, and nothing is posted.
	Prepare func(ctx context.Context, event []byte, log *slog.Logger) (Post, error)
}

// Run is the core of `plandash hook AGENT`: it reads one event from stdin, lets the agent's
// Prepare decode it, posts it, and for a Wait prints the answer. It never fails the agent: an
// unreadable or foreign event, or a Capture the server does not take, prints nothing and
// returns nil, so the agent goes on as if plandash were not there; a Wait that gets no usable
// decision (server down or slow, an answer of the wrong shape) prints the Fallback's answer
// and says why on Stderr. Even an answer it could not write is only logged.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, post Poster, s Spec) {
	if s.CaptureTimeout <= 0 {
		s.CaptureTimeout = DefaultCaptureTimeout
	}
	if s.GateTimeout <= 0 {
		s.GateTimeout = DefaultGateTimeout
	}
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	msg := "plandash hook " + s.Agent + ": "
	event, err := ReadEvent(ctx, stdin, s.MaxEvent, s.CaptureTimeout)
	if err != nil {
		log.Warn(msg+"no event read", "err", err)
		return
	}
	p, err := s.Prepare(ctx, event, log)
	if err != nil {
		log.Warn(msg+"not a hook event; nothing to do", "err", err)
		return
	}
	if p.Kind == Capture {
		pctx, cancel := context.WithTimeout(ctx, s.CaptureTimeout)
		defer cancel()
		if _, err := post.Post(pctx, p.Body, false); err != nil {
			log.Warn(msg+"post failed; the agent goes on", "event", Truncate(p.Name, 64), "err", err)
		}
		return
	}
	if p.Kind != Wait {
		return
	}
	answer, miss := wait(ctx, post, p, s.GateTimeout, s.Stderr, msg)
	if miss != nil {
		log.Warn(msg+"no usable decision; the person at the terminal decides", "event", Truncate(p.Name, 64), "err", miss.Err)
	}
	if _, err := stdout.Write(bytes.TrimSpace(answer)); err != nil {
		log.Warn(msg+"write the answer", "err", err)
	}
}

// wait posts a Wait's body and waits up to timeout for the answer. When none is usable it
// returns the Fallback's answer and the Miss, after saying why on stderr (when set) after msg.
func wait(ctx context.Context, post Poster, p Post, timeout time.Duration, stderr io.Writer, msg string) ([]byte, *Miss) {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	answer, err := post.Post(pctx, p.Body, true)
	var miss *Miss
	if err != nil {
		miss = &Miss{Err: err}
	} else if p.Check != nil {
		if err := p.Check(answer); err != nil {
			miss = &Miss{Err: err, Unusable: true}
		}
	}
	if miss == nil {
		return answer, nil
	}
	fallback := p.Fallback
	if fallback == nil {
		fallback = AskHere
	}
	answer, why := fallback(*miss)
	if stderr != nil {
		fmt.Fprintf(stderr, "%s%s\n", msg, why)
	}
	return answer, miss
}

// AddFields sets fields on a JSON object event (plandash_host and the like: what only the
// agent's machine knows), keeping every other member; it returns event unchanged when there is
// nothing to add or it is not an object.
func AddFields(event []byte, add map[string]any) []byte {
	if len(add) == 0 {
		return event
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(event, &m) != nil || m == nil {
		return event
	}
	for k, v := range add {
		b, err := json.Marshal(v)
		if err != nil {
			return event
		}
		m[k] = b
	}
	out, err := json.Marshal(m)
	if err != nil {
		return event
	}
	return out
}

package agentkit

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/approval"
)

// Holder is the part of approval.Gate that holds one request until a person decides it.
type Holder interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
}

// Closer is the part of approval.Gate that closes requests nobody can answer any more.
type Closer interface {
	Decide(ctx context.Context, id string, in approval.DecisionInput) (approval.Request, error)
	Pending(ctx context.Context) ([]approval.Request, error)
}

// Holding is how an agent's hook holds its plans at the gate. Each agent says what it submits
// and how it answers; Holding waits, and hands over or closes the requests the agent left.
type Holding struct {
	Log *slog.Logger
	// Hook starts each logged line: "droid hook".
	Hook string
	// Agent is the agent's display name (AgentTitle): its requests carry it, and a request
	// closed for it says the answer no longer reaches it.
	Agent string
	// Stopped is what a request says once the hook stopped waiting for plandash's answer.
	Stopped string
}

// Hold submits sub to g and waits until it is decided. When ctx ends first (the hook gave up:
// its timeout, or the agent was stopped), nobody answers into the void: the request is handed
// to the terminal with Stopped, since what the agent did without an answer is not known here,
// and ctx's error is returned.
func (h Holding) Hold(ctx context.Context, g Holder, sub approval.Submission) (approval.Request, error) {
	r, _, err := g.Submit(ctx, sub)
	if err != nil {
		return r, err
	}
	id := r.ID
	for !r.Decided() {
		r, err = g.Wait(ctx, id, time.Minute)
		if ctx.Err() != nil {
			if _, err := g.HandOver(context.WithoutCancel(ctx), id, TerminalDecider, h.Stopped); err != nil {
				h.Log.Warn(h.Hook+": close request", "request", id, "err", err)
			}
			return r, ctx.Err()
		}
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// reject rejects the request id in the terminal's name, saying why plandash's answer no longer
// reaches the agent. A request decided meanwhile is left as it is; other failures are logged.
func (h Holding) reject(ctx context.Context, g Closer, id, why string) {
	in := approval.DecisionInput{Action: approval.Reject, By: TerminalDecider, Comment: why + "; plandash's answer no longer reaches " + h.Agent}
	_, err := g.Decide(context.WithoutCancel(ctx), id, in)
	var de *approval.DecidedError
	if err != nil && !errors.As(err, &de) {
		h.Log.Warn(h.Hook+": close request", "request", id, "err", err)
	}
}

// CloseStale rejects the session key's pending requests in the terminal's name (see reject):
// its turn ended, so the inbox must not offer a decision that can no longer reach the agent.
func (h Holding) CloseStale(ctx context.Context, g Closer, key string) {
	pending, err := g.Pending(ctx)
	if err != nil {
		h.Log.Warn(h.Hook+": list pending requests", "err", err)
		return
	}
	for _, r := range pending {
		if r.SessionID == key && r.Agent == h.Agent {
			h.reject(ctx, g, r.ID, "the turn ended")
		}
	}
}

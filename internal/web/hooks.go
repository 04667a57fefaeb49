package web

import (
	"context"
	"io"
	"net/http"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// AgentHooks handles one agent's hook events: it records them and, for an event that waits at
// the gate, answers with what the agent's hook prints once a person decided.
type AgentHooks interface {
	Handle(ctx context.Context, body []byte) ([]byte, error)
}

// capturer is implemented by agent hooks whose events, but for the gate's, need no answer.
// Such an event is acknowledged as soon as it is read and recorded right after, in the order
// events arrived: the hook (and the agent behind it) does not wait for the database's fsync.
type capturer interface {
	Captures(body []byte) bool
}

// maxCaptureQueue bounds the events read but not yet recorded; past it, a hook waits for its
// event to be recorded, as it would without the queue.
const maxCaptureQueue = 4096

// capture is an event read and acknowledged, to be recorded.
type capture struct {
	agent  string
	h      AgentHooks
	body   []byte
	source string // plans.SourceOf the request that brought it
}

// recordCaptures records acknowledged events in arrival order until ctx ends, then the ones
// still queued.
func (s *Server) recordCaptures(ctx context.Context) {
	record := func(c capture) {
		if _, err := c.h.Handle(plans.WithSource(context.WithoutCancel(ctx), c.source), c.body); err != nil {
			s.log.Warn("agent hook: an acknowledged event could not be recorded", "agent", c.agent, "err", err)
		}
	}
	for {
		select {
		case c := <-s.captures:
			record(c)
		case <-ctx.Done():
			for {
				select {
				case c := <-s.captures:
					record(c)
				default:
					return
				}
			}
		}
	}
}

// maxHookBody bounds one hook event: a plan plus the hook's common fields.
const maxHookBody = 16 << 20

// apiAgentHook serves POST /api/v1/hooks/{agent}: one hook event of Claude Code, Codex or Gemini
// CLI, as `plandash hook AGENT` posts it (Claude Code's own "http" hooks post the same). Capture
// events are recorded and answered at once with an empty body; a plan at the gate is held until
// a person decides (or the deadline passes, or the hook gives up) and answered with the hook's
// JSON.
func (s *Server) apiAgentHook(w http.ResponseWriter, r *http.Request) {
	agent := param(r, "agent")
	h, ok := s.hooks[agent]
	if !ok {
		writeProblem(w, r, s.log, errs.Errorf(errs.NotFound, "no hooks for agent %q: plandash takes claude, codex, gemini and opencode", agent))
		return
	}
	s.metrics.IngestPosts.With("hook:" + agent).Inc() // agent is one of the hooks' names: bounded
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err != nil {
		writeProblem(w, r, s.log, errs.Wrap(errs.Invalid, err, "reading the hook event: "+err.Error()))
		return
	}
	if c, ok := h.(capturer); ok && s.capturing.Load() && c.Captures(body) {
		select {
		case s.captures <- capture{agent, h, body, plans.SourceOf(r.Context())}:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusAccepted)
			return
		default: // the queue is full: record it now, and let the hook wait
		}
	}
	answer, err := h.Handle(r.Context(), body)
	if r.Context().Err() != nil && s.stopping() {
		writeRestarting(w, r, s) // the hook asks again once plandash is back
		return
	}
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(answer)
}

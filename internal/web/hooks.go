package web

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/plandash/plandash/internal/agents/capture"
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

// apiAgentHook serves POST /api/v1/hooks/{agent}: one hook event of an agent the application
// built hooks for (the registry's), as `plandash hook AGENT` posts it (Claude Code's own "http"
// hooks post the same), or as plandash's plugin posts it (OpenCode). Capture
// events are recorded and answered at once with an empty body; a plan at the gate is held until
// a person decides (or the deadline passes, or the hook gives up) and answered with the hook's
// JSON.
func (s *Server) apiAgentHook(w http.ResponseWriter, r *http.Request) {
	agent := param(r, "agent")
	h, ok := s.hooks[agent]
	if !ok {
		writeProblem(w, r, s.log, errs.Errorf(errs.NotFound, "no hooks for agent %q: plandash takes %s", hookText(agent, 64), hookNames(s.hooks)))
		return
	}
	s.metrics.IngestPosts.With("hook:" + agent).Inc() // agent is one of the hooks' names: bounded
	body, err := readBody(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody), r.ContentLength, s.cfg.MaxBody)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			err = errs.Errorf(errs.TooLarge, "the hook event is over the %s limit (--max-body)", sizeText(s.cfg.MaxBody))
		} else {
			err = errs.Wrap(errs.Invalid, err, "reading the hook event: "+err.Error())
		}
		writeProblem(w, r, s.log, err)
		return
	}
	if c, ok := h.(capturer); ok && s.captures.Running.Load() && c.Captures(body) {
		if !s.captures.Offer(capture.Event{Agent: agent, Handler: h, Body: body, Source: plans.SourceOf(r.Context())}) {
			// Too much is read but not yet recorded: the hook tries again shortly (it does on a
			// 503 with Retry-After), instead of every event's body piling up in memory here.
			s.metrics.HookBusy.With(agent).Inc()
			w.Header().Set("Retry-After", "1")
			writeProblem(w, r, s.log, errs.Errorf(errs.Unavailable, "plandash is behind recording hook events (over %s queued); try again shortly", sizeText(s.captures.Budget())))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	answer, err := h.Handle(r.Context(), body)
	if r.Context().Err() != nil && stopping(s.stop) {
		writeRestarting(w, r, s.log) // the hook asks again once plandash is back
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

// hookNames lists the agents with hooks for an error message: "claude, codex and gemini".
func hookNames(hooks map[string]AgentHooks) string {
	names := slices.Sorted(maps.Keys(hooks))
	switch len(names) {
	case 0:
		return "no agent's hooks"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// hookText is an agent name from a request, bounded for an error message.
func hookText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

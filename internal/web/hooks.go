package web

import (
	"context"
	"io"
	"net/http"

	"github.com/plandash/plandash/internal/errs"
)

// AgentHooks handles one agent's hook events: it records them and, for an event that waits at
// the gate, answers with what the agent's hook prints once a person decided.
type AgentHooks interface {
	Handle(ctx context.Context, body []byte) ([]byte, error)
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err != nil {
		writeProblem(w, r, s.log, errs.Wrap(errs.Invalid, err, "reading the hook event: "+err.Error()))
		return
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

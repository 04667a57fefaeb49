package web

import (
	"io"
	"net/http"

	"github.com/plandash/plandash/internal/agents/claude"
	"github.com/plandash/plandash/internal/errs"
)

// maxHookBody bounds one hook event: a plan plus the hook's common fields.
const maxHookBody = claude.MaxEventBytes

// apiClaudeHook serves POST /api/v1/hooks/claude: one Claude Code hook event, as `plandash hook
// claude` posts it or as Claude Code's own "http" hooks do. Capture events are recorded and
// answered at once with an empty body; a plan-mode plan at the gate is held until a person
// decides (or the deadline passes, or the hook gives up) and answered with the hook's JSON.
func (s *Server) apiClaudeHook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err != nil {
		writeProblem(w, r, s.log, errs.Wrap(errs.Invalid, err, "reading the hook event: "+err.Error()))
		return
	}
	answer, err := s.claude.Handle(r.Context(), body)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(answer)
}

package web

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/permissions"
)

// apiProxyOffer is a proxy offering a request (again, after a reconnect).
func (s *Server) apiProxyOffer(w http.ResponseWriter, r *http.Request) {
	var p permissions.Request
	if err := decodeJSON(w, r, maxProxyBody, false, &p); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if err := s.perms.Offer(p); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// apiProxyResolved is a proxy saying a request ended.
func (s *Server) apiProxyResolved(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stream  string                 `json:"stream"`
		ID      json.RawMessage        `json:"id"`
		By      string                 `json:"by"`
		Outcome *acp.PermissionOutcome `json:"outcome"`
	}
	if err := decodeJSON(w, r, maxProxyBody, false, &body); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	s.perms.Resolve(body.Stream, body.ID, body.By, body.Outcome)
	w.WriteHeader(http.StatusNoContent)
}

// apiProxyAnswer is the dashboard answering: {"stream":…,"id":…,"outcome":{"outcome":"selected","optionId":…}}.
func (s *Server) apiProxyAnswer(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stream  string              `json:"stream"`
		ID      json.RawMessage     `json:"id"`
		Outcome permissions.Outcome `json:"outcome"`
	}
	if err := decodeJSON(w, r, maxProxyBody, false, &body); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if err := s.perms.Answer(body.Stream, body.ID, acp.PermissionOutcome(body.Outcome), s.decider(r)); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) apiProxyPermissions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.perms.List())
}

// apiProxyAnswers is a proxy's long poll: the answers for its stream, as soon as there are any,
// or [] after ?wait (default 20 s, at most 60 s).
func (s *Server) apiProxyAnswers(w http.ResponseWriter, r *http.Request) {
	wait := 20 * time.Second
	if v := r.URL.Query().Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			writeProblem(w, r, s.log, errs.Errorf(errs.Invalid, "wait must be a duration such as 20s"))
			return
		}
		wait = min(d, time.Minute)
	}
	got := s.perms.Answers(r.Context(), r.URL.Query().Get("stream"), wait)
	if r.Context().Err() != nil {
		return
	}
	writeJSON(w, http.StatusOK, got)
}

// maxProxyBody bounds what a proxy posts: a permission request with its tool call.
const maxProxyBody = 8 << 20

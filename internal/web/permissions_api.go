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
	if err := s.perms.Offer(proxyOwner(r), p); err != nil {
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
	if err := s.perms.Resolve(proxyOwner(r), body.Stream, body.ID, body.By, body.Outcome); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
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
	if err := s.perms.Answer(body.Stream, body.ID, acp.PermissionOutcome(body.Outcome), decider(r, s.cfg)); err != nil {
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
	got, err := s.perms.Answers(r.Context(), proxyOwner(r), r.URL.Query().Get("stream"), wait)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if r.Context().Err() != nil {
		return
	}
	writeJSON(w, http.StatusOK, got)
}

// proxyOwner is who a proxy's stream belongs to: the credential r came with. A per-agent
// token is named by its identity (its name and a prefix of its secret's hash), not by its name
// alone, so a new token given a revoked token's name is another owner.
func proxyOwner(r *http.Request) string {
	p := principalOf(r)
	if p.agent == nil {
		return "server"
	}
	h := p.agent.Hash
	if len(h) > 16 {
		h = h[:16] // 64 bits tell tokens apart; the whole hash need not be copied around
	}
	return p.agent.Label() + "#" + h
}

// maxProxyBody bounds what a proxy posts: a permission request with its tool call.
const maxProxyBody = 8 << 20

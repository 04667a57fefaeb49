package web

import (
	"net/http"
	"strings"

	"github.com/plandash/plandash/web/templates"
)

// apiEmbedLogin serves POST /api/v1/embed/login: an iframe trades its token for a cookie, which
// stands for that token and dies with it.
func (s *Server) apiEmbedLogin(w http.ResponseWriter, r *http.Request) {
	s.auth.SetEmbedCookie(w, principalOf(r))
	w.WriteHeader(http.StatusNoContent)
}

// embedOrigins is who may talk to an embedded page over postMessage: the frame ancestors that
// name an origin ('self' is the page's own).
func embedOrigins(frameAncestors []string) string {
	var out []string
	for _, a := range frameAncestors {
		if a == "'self'" {
			continue
		}
		out = append(out, strings.Trim(a, "'"))
	}
	return strings.Join(out, " ")
}

// embedOverview serves GET /embed: the overview for a panel, narrowed by the overview's own query
// (an IDE passes ?dir=WORKSPACE to show the sessions working inside it).
func (s *Server) embedOverview(w http.ResponseWriter, r *http.Request) {
	f, err := parseOverviewFilter(r.URL.Query())
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	o, err := s.views.Overview(r.Context(), f)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.EmbedOverview(o, embedOrigins(s.cfg.FrameAncestors)))
}

func (s *Server) embedSession(w http.ResponseWriter, r *http.Request) {
	v, err := s.views.EmbedSession(r.Context(), param(r, "id"))
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.EmbedSession(v, embedOrigins(s.cfg.FrameAncestors)))
}

func (s *Server) embedApprovals(w http.ResponseWriter, r *http.Request) {
	p, err := s.views.Inbox(r.Context())
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.EmbedApprovals(p, embedOrigins(s.cfg.FrameAncestors)))
}

func (s *Server) embedApproval(w http.ResponseWriter, r *http.Request) {
	p, err := s.pages.approval(r.Context(), param(r, "id"))
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.EmbedApprovalView(p, embedOrigins(s.cfg.FrameAncestors)))
}

package web

import (
	"net/http"

	"github.com/plandash/plandash/web/templates"
)

// sessions serves GET /sessions.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.plans.Sessions(r.Context(), 200)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.SessionsPage(list, s.plans.Now(), 0))
}

// session serves GET /sessions/{id}.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	v, err := s.views.Session(r.Context(), param(r, "id"))
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.SessionPageView(v))
}

// history serves GET /sessions/{id}/plans/{plan}/history?from=&to=&cursor=&limit=.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	h, err := s.views.History(r.Context(), param(r, "id"), param(r, "plan"), r.URL)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	// The page also lists the calls added, removed and changed; the API leaves that out.
	h.Page.DAGDiff = s.views.DAGDiff(h.From, h.To)
	writeHTML(w, r, s.log, templates.History(h.Page))
}

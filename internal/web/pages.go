package web

import (
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

func (s *Server) page(w http.ResponseWriter, r *http.Request, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := c.Render(r.Context(), w); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
	}
}

// errorPage answers a page request that failed, in HTML.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	msg := err.Error()
	if code == http.StatusInternalServerError {
		s.log.Error("page failed", "path", r.URL.Path, "err", err)
		msg = "Something went wrong; the server log has the details."
	} else if code == http.StatusNotFound {
		msg = "There is nothing here: the session or plan does not exist (yet)."
	}
	writeErrorPage(w, r, code, msg)
}

// sessions serves GET /sessions.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.plans.Sessions(r.Context(), 200)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.page(w, r, templates.SessionsPage(list, s.plans.Now(), 0))
}

// session serves GET /sessions/{id}.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	v, err := s.views.Session(r.Context(), param(r, "id"))
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.page(w, r, templates.SessionPageView(v))
}

// apiSession serves GET /api/v1/sessions/{id}.
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request) {
	calls := plans.RecentToolCalls
	if v := r.URL.Query().Get("calls"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 5000 {
			writeProblem(w, r, s.log, errs.Errorf(errs.Invalid, "calls must be a number of tool calls from 1 to 5000"))
			return
		}
		calls = n
	}
	d, err := s.plans.SessionCalls(r.Context(), param(r, "id"), calls)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// apiEndSession serves POST /api/v1/sessions/{id}/end.
func (s *Server) apiEndSession(w http.ResponseWriter, r *http.Request) {
	sess, err := s.plans.EndSession(r.Context(), param(r, "id"))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, sess)
}

// history serves GET /sessions/{id}/plans/{plan}/history?from=&to=&cursor=&limit=.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	h, err := s.views.History(r.Context(), param(r, "id"), param(r, "plan"), r.URL)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	// The page also lists the calls added, removed and changed; the API leaves that out.
	h.Page.DAGDiff = s.views.DAGDiff(h.From, h.To)
	s.page(w, r, templates.History(h.Page))
}

// apiHistory serves GET /api/v1/sessions/{id}/plans/{plan}/history?from=&to=&cursor=&limit=: one
// page of revisions (newest first, without plans) and the diff between the two compared.
func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request) {
	hist, err := s.views.History(r.Context(), param(r, "id"), param(r, "plan"), r.URL)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	h, from, to := hist.Page, hist.From, hist.To
	// The line diff the API has always served; the page shows only the structured one.
	type line struct {
		Op   string `json:"op"`
		Text string `json:"text"`
	}
	lines := plans.Diff(from.Lines(), to.Lines())
	diff := make([]line, len(lines))
	for i, l := range lines {
		diff[i] = line{string(rune(l.Op)), l.Text}
	}
	next := ""
	if h.Older != "" {
		next = plans.RevisionCursor(h.Revisions[len(h.Revisions)-1]).String()
		w.Header().Set("Link", "<"+h.Older+`>; rel="next"`)
	}
	writeJSON(w, http.StatusOK, map[string]any{"revisions": h.Revisions, "newest": h.Newest, "next": next, "from": h.From, "to": h.To, "diff": diff, "changes": h.Changes})
}

// healthz serves GET /healthz: liveness, with the store's change number.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "seq": s.plans.Seq()})
}

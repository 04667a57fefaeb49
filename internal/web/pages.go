package web

import (
	"net/http"

	"github.com/a-h/templ"
)

// page answers with a page (status 200), never cached.
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

// pageStatus renders a page with a status other than 200: a refused form shown again.
func (s *Server) pageStatus(w http.ResponseWriter, r *http.Request, code int, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if err := c.Render(r.Context(), w); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
	}
}

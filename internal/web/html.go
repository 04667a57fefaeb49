package web

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/web/templates"
)

// wantsHTML reports whether an error should be answered as a page: a browser asked (it accepts
// HTML) for something that is not the API, the socket or a file. Scripts, the CLI and the API's
// clients keep their problem+json.
func wantsHTML(r *http.Request) bool {
	if !strings.Contains(r.Header.Get("Accept"), "text/html") {
		return false
	}
	p := r.URL.Path
	for _, prefix := range []string{"/api/", "/static/"} {
		if strings.HasPrefix(p, prefix) {
			return false
		}
	}
	switch p {
	case "/mcp", "/ws", "/healthz", "/readyz":
		return false
	}
	return true
}

// writeErrorPage answers with the error page in the site's frame.
func writeErrorPage(w http.ResponseWriter, r *http.Request, code int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Del("Content-Length")
	w.WriteHeader(code)
	_ = templates.ErrorPage(code, msg).Render(r.Context(), w)
}

// writeHTML answers with a page (status 200), never cached.
func writeHTML(w http.ResponseWriter, r *http.Request, log *slog.Logger, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := c.Render(r.Context(), w); err != nil {
		log.Error("render page", "path", r.URL.Path, "err", err)
	}
}

// writeHTMLStatus renders a page with a status other than 200: a refused form shown again.
func writeHTMLStatus(w http.ResponseWriter, r *http.Request, log *slog.Logger, code int, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if err := c.Render(r.Context(), w); err != nil {
		log.Error("render page", "path", r.URL.Path, "err", err)
	}
}

// writePageError answers a page request that failed, in HTML.
func writePageError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := status(err)
	msg := err.Error()
	if code == http.StatusInternalServerError {
		log.Error("page failed", "path", r.URL.Path, "err", err)
		msg = "Something went wrong; the server log has the details."
	} else if code == http.StatusNotFound {
		msg = "There is nothing here: the session or plan does not exist (yet)."
	}
	writeErrorPage(w, r, code, msg)
}

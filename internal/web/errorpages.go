package web

import (
	"net/http"
	"strings"

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

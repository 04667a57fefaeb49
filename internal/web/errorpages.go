package web

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/plandash/plandash/internal/errs"
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

// recoverPanics turns a handler's panic into a logged 500 (a page or a problem), instead of a
// dropped connection or a blank answer. An aborted handler (http.ErrAbortHandler) is let through.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			if r.Header.Get("Upgrade") == "" {
				writeProblem(w, r, s.log, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// methodNotAllowed answers a method a route does not take.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeProblemStatus(w, r, s.log, errs.Errorf(errs.Invalid, "%s is not something %s does", r.Method, r.URL.Path), http.StatusMethodNotAllowed)
}

// crossOriginRefused answers a state-changing request another site's page sent.
func (s *Server) crossOriginRefused(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, s.log, errs.New(errs.Forbidden, "a request from another site was refused: plandash takes changes only from its own pages"))
}

// csrf is the cross-site forgery check every request passes: Sec-Fetch-Site and Origin are
// checked; non-browser clients (curl, the proxy) send neither.
func (s *Server) csrf() func(http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(s.crossOriginRefused))
	return p.Handler
}

package web

import (
	"net/http"

	"github.com/plandash/plandash/internal/errs"
)

// errRestarting is what a request still waiting when the server shuts down gets: a retryable
// answer, so a long poll (a waiting hook, `plandash approval request`, a proxy) asks again once
// the server (or another instance) is back, instead of mistaking an empty 200 for an answer.
var errRestarting = errs.New(errs.Unavailable, "plandash is shutting down; ask again in a moment")

// stopping reports whether graceful shutdown has begun.
func (s *Server) stopping() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// drain wraps a long-poll route: if the server began shutting down while the handler waited and
// the handler wrote nothing, the client gets 503 with Retry-After.
func (s *Server) drain(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &writeTracker{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if !rec.wrote && s.stopping() {
			writeRestarting(w, r, s)
		}
	})
}

func writeRestarting(w http.ResponseWriter, r *http.Request, s *Server) {
	w.Header().Set("Retry-After", "1")
	writeProblem(w, r, s.log, errRestarting)
}

// writeTracker notes whether a handler wrote anything.
type writeTracker struct {
	http.ResponseWriter
	wrote bool
}

func (t *writeTracker) WriteHeader(code int) { t.wrote = true; t.ResponseWriter.WriteHeader(code) }
func (t *writeTracker) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer (flushes, deadlines).
func (t *writeTracker) Unwrap() http.ResponseWriter { return t.ResponseWriter }

package web

import (
	"context"
	"net/http"
	"time"
)

// healthz serves GET /healthz: liveness, with the store's change number.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "seq": s.plans.Seq()})
}

// readyTimeout bounds the probe: a database that takes longer is as good as down to a load
// balancer choosing where to send a request.
const readyTimeout = 2 * time.Second

// readyz serves GET /readyz: 200 when the database answers and its migrations are done, else
// 503, so a load balancer sends requests only to instances that can serve them. Like /healthz
// it needs no token and says nothing beyond ready or not (the reason goes to the log).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	probe := s.ready
	if probe == nil {
		// The stores are migrated before the server exists: a read that succeeds says the
		// database answers with its tables in place.
		probe = func(ctx context.Context) error { _, err := s.gate.CountPending(ctx); return err }
	}
	if err := probe(ctx); err != nil {
		s.log.Warn("not ready", "err", err)
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
}

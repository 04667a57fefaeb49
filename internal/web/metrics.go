package web

import (
	"context"
	"net/http"
	"time"

	"github.com/plandash/plandash/internal/metrics"
)

// metricsHandler serves GET /metrics in the Prometheus text format. It sits behind the API
// token like the rest of the API: the figures (agents' names in counts, request rates) are
// not for everyone who can reach the port, and Prometheus sends a bearer token with
// `authorization: {credentials_file: …}` in its scrape config.
func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request) {
	// Gauges read from the database must not hold a scrape past Prometheus's own timeout.
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", metrics.ContentType)
	w.Header().Set("Cache-Control", "no-store")
	if err := s.metrics.Registry.WriteText(ctx, w); err != nil {
		s.log.Debug("writing /metrics", "err", err)
	}
}

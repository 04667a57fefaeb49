package web

import (
	"context"
	"net/http"
	"time"

	"github.com/plandash/plandash/internal/metrics"
	"github.com/plandash/plandash/internal/plans"
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

// countIngest counts one ingest post and its messages by kind.
func (s *Server) countIngest(items []plans.Item) {
	s.metrics.IngestPosts.With("ingest").Inc()
	for _, it := range items {
		s.metrics.IngestMessages.With(metrics.MessageKind(it.Msg.Method, it.Msg.IsResponse())).Inc()
	}
}

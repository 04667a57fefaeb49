package web

import (
	"context"

	"github.com/go-chi/chi/v5"
	"github.com/plandash/plandash/internal/mcpserver"
)

// sharedState is the shared-plans part of the Server. (Owned by the shared-plans work.)
type sharedState struct{}

func (s *Server) openSharedPlans(ctx context.Context) error { return nil }
func (s *Server) runSharedPlans(ctx context.Context)        {}
func (s *Server) sharedPlanPages(r chi.Router)              {}
func (s *Server) sharedPlanAPI(r chi.Router)                {}

// mcpOptions names the tools /mcp offers.
func (s *Server) mcpOptions() mcpserver.Options {
	return mcpserver.Options{Version: s.cfg.Version}
}

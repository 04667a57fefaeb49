package web

import (
	"context"

	"github.com/go-chi/chi/v5"
)

// approvalState is the gate's part of the Server. (Owned by the approval work.)
type approvalState struct{}

func (s *Server) openApprovals(ctx context.Context) error { return nil }
func (s *Server) runApprovals(ctx context.Context)        {}
func (s *Server) approvalPages(r chi.Router)              {}
func (s *Server) approvalAPI(r chi.Router)                {}

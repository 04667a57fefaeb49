package web

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/mcpserver"
)

// mcpHandler serves MCP over streamable HTTP at /mcp: the shared-plan tools, with file tools
// confined to the allowed roots, and the approval tool.
func (s *Server) mcpHandler() http.Handler {
	srv := mcpserver.New(s.mcpOptions())
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

// runBackground starts what runs beside the HTTP server until ctx ends.
func (s *Server) runBackground(ctx context.Context) {
	for _, run := range []func(context.Context){s.runApprovals, s.runSharedPlans} {
		go run(ctx)
	}
}

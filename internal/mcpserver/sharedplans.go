package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/sharedplans"
)

// registerSharedPlans adds docker-agent's eight plan tools. (Owned by the shared-plans work.)
func registerSharedPlans(srv *mcp.Server, ts *sharedplans.Toolset) {}

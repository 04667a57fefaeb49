// Package mcpserver is plandash's MCP server: the shared-plan tools (docker-agent compatible)
// and the approval tool, served over streamable HTTP at /mcp and over stdio by `plandash mcp`.
package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/sharedplans"
)

// Options says which tools the server offers; a nil field leaves its tools out.
type Options struct {
	Version     string
	SharedPlans *sharedplans.Toolset
	Approvals   Approver
}

// New builds the MCP server with the tools Options names.
func New(o Options) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "plandash", Title: "plandash", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions(o),
	})
	if o.SharedPlans != nil {
		registerSharedPlans(srv, o.SharedPlans)
	}
	if o.Approvals != nil {
		registerApproval(srv, o.Approvals)
	}
	return srv
}

func instructions(o Options) string {
	s := "plandash shows plans to people and holds them at a human gate."
	if o.SharedPlans != nil {
		s += "\n\n" + sharedplans.Instructions
	}
	return s
}

package main

import (
	"context"
	"flag"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/sharedplans"
)

// mcpCmd serves the MCP tools on stdio. Shared plans are read and written on disk directly, with
// file tools resolving paths against the working directory as docker-agent's do; the approval
// tool asks the running server's gate.
func mcpCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f client.Flags
	f.Register(fs)
	plansDir := fs.String("plans-dir", getenv("PLANDASH_PLANS_DIR"), "docker-agent's shared plans directory (default ~/.cagent/plans)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	srv := mcpserver.New(mcpserver.Options{
		Version:     version,
		SharedPlans: sharedplans.NewToolset(sharedplans.New(*plansDir), files.WorkingDir("")),
		Approvals:   gateClient{client.Resolve(getenv, f).Client()},
	})
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

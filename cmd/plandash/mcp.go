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
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}, MaxLineLength: maxStdioFrame})
}

// maxStdioFrame bounds one inbound JSON-RPC line. The SDK's default (16 MiB) refused the
// largest plan docker-agent accepts: write_plan with 10 MiB of control characters is a 60 MiB
// frame once escaped, and up to 70 MiB when a model sends the arguments as a JSON string. The
// bound is the largest stored plan plus room for the envelope and the other arguments.
const maxStdioFrame = sharedplans.MaxEncodedSize + 1<<20

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

package mcpserver_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/sharedplans"
)

// BenchmarkUpdateFromHugeFileInProcess is BenchmarkStdioUpdateFromHugeFile without the process
// and the pipe, for profiling the server's and the SDK's share.
func BenchmarkUpdateFromHugeFileInProcess(b *testing.B) {
	plansDir, work := b.TempDir(), b.TempDir()
	if err := os.WriteFile(filepath.Join(work, "big.md"), make([]byte, 10<<20), 0o600); err != nil {
		b.Fatal(err)
	}
	srv := mcpserver.New(mcpserver.Options{Version: "test", SharedPlans: sharedplans.NewToolset(sharedplans.New(plansDir), files.WorkingDir(work))})
	// Two pipes, as stdio gives: the SDK's in-memory transports cap frames at 16 MiB.
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw, MaxLineLength: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for b.Loop() {
		if text, isErr := callTool(b, ctx, cs, "update_plan_from_file", map[string]any{"name": "big", "path": "big.md"}); isErr {
			b.Fatal(text)
		}
	}
}

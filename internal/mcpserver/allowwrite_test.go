package mcpserver_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/web"
)

// TestExportNeedsAWriteRoot: --allow-root says which files people are shown, not which files
// agents may overwrite. Over /mcp on the real router, export_plan_to_file is refused, with the
// flag to use named, when the server has reading roots only; the file under the reading root
// is left alone. With --allow-write the same call writes there, and nowhere else.
func TestExportNeedsAWriteRoot(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write bool
	}{{"reading roots only", false}, {"with a write root", true}} {
		t.Run(tc.name, func(t *testing.T) {
			plansDir, shown, writable := t.TempDir(), t.TempDir(), t.TempDir()
			victim := filepath.Join(shown, "README.md")
			if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))},
				DataDir: t.TempDir(), Token: "mcp-token", PlansDir: plansDir, AllowRoots: []string{shown}}
			if tc.write {
				cfg.AllowWrite = []string{writable}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			srv, err := app.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			hs := httptest.NewServer(srv.Server.Handler())
			defer hs.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{"mcp-token", http.DefaultTransport}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if text, isErr := callTool(t, ctx, cs, "write_plan", map[string]any{"name": "p", "content": "overwritten"}); isErr {
				t.Fatal(text)
			}

			text, isErr := callTool(t, ctx, cs, "export_plan_to_file", map[string]any{"name": "p", "path": victim})
			if !isErr {
				t.Errorf("export over a file under a reading root: %s", text)
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious" {
				t.Fatalf("the file under --allow-root was overwritten: %q", b)
			}
			out := filepath.Join(writable, "out", "p.md")
			text, isErr = callTool(t, ctx, cs, "export_plan_to_file", map[string]any{"name": "p", "path": out})
			b, err := os.ReadFile(out)
			switch {
			case tc.write && (isErr || string(b) != "overwritten"):
				t.Errorf("export under --allow-write = %q (isError %v); file %q %v", text, isErr, b, err)
			case !tc.write && (!isErr || !strings.Contains(text, "--allow-write")):
				t.Errorf("export without --allow-write = %q (isError %v), want a refusal naming --allow-write", text, isErr)
			case !tc.write && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("export without --allow-write wrote %q", b)
			}
		})
	}
}

package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/sharedplans"
)

// inProcess connects the SDK client to the MCP server over the SDK's in-memory transports.
func inProcess(t *testing.T, o mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcpserver.New(o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestSymlinkOutOfPlansDirNotFollowed: whoever can write the plans directory plants
// leak.json -> a secret file; list_plans and read_plan must neither show the secret nor a byte
// of it in an error, and a .plans.lock linked out of the directory must not create a file
// where it points. A symlink to another plan inside the directory still works.
func TestSymlinkOutOfPlansDirNotFollowed(t *testing.T) {
	plansDir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "shadow")
	if err := os.WriteFile(secret, []byte("root:$y$j9T$secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	jsonSecret := filepath.Join(outside, "plan.json")
	if err := os.WriteFile(jsonSecret, []byte(`{"name":"x","content":"TOP SECRET","revision":1,"updatedAt":"2026-01-01T00:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := sharedplans.NewToolset(sharedplans.New(plansDir), nil)
	cs := inProcess(t, mcpserver.Options{Version: "test", SharedPlans: ts})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if text, isErr := callTool(t, ctx, cs, "write_plan", map[string]any{"name": "real", "content": "inside"}); isErr {
		t.Fatal(text)
	}
	for link, target := range map[string]string{"leak.json": secret, "leakjson.json": jsonSecret, "alias.json": "real.json"} {
		if err := os.Symlink(target, filepath.Join(plansDir, link)); err != nil {
			t.Fatal(err)
		}
	}

	text, _ := callTool(t, ctx, cs, "list_plans", nil)
	for _, leak := range []string{"'r'", "root", "TOP SECRET", "secret"} {
		if strings.Contains(text, leak) {
			t.Errorf("list_plans shows %s of a file outside the plans directory: %s", leak, text)
		}
	}
	if !strings.Contains(text, `skipped \"leak\": plan file leak.json is corrupt: a symlink out of the plans directory, not followed`) {
		t.Errorf("list_plans does not say why leak is skipped: %s", text)
	}
	if !strings.Contains(text, `"name":"alias"`) {
		t.Errorf("a symlink to a plan inside the directory is not listed: %s", text)
	}
	for _, name := range []string{"leak", "leakjson"} {
		text, isErr := callTool(t, ctx, cs, "read_plan", map[string]any{"name": name})
		if !isErr || strings.Contains(text, "SECRET") || strings.Contains(text, "'r'") || !strings.Contains(text, "symlink out of the plans directory") {
			t.Errorf("read_plan(%s) = %q (isError %v)", name, text, isErr)
		}
	}
	if text, isErr := callTool(t, ctx, cs, "read_plan", map[string]any{"name": "alias"}); isErr || !strings.Contains(text, `"content":"inside"`) {
		t.Errorf("read_plan(alias) = %q", text)
	}

	// The lock sentinel swapped for a dangling link out of the directory.
	lock := filepath.Join(plansDir, sharedplans.LockFileName)
	planted := filepath.Join(outside, "created-by-plandash")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(planted, lock); err != nil {
		t.Fatal(err)
	}
	if text, isErr := callTool(t, ctx, cs, "write_plan", map[string]any{"name": "real", "content": "again"}); !isErr {
		t.Errorf("write through a lock file linked out of the directory: %s", text)
	}
	if _, err := os.Lstat(planted); err == nil {
		t.Error("the lock file's link was followed: a file was created outside the plans directory")
	}
}

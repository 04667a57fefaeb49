package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/web"
)

// toolSpec is what docker-agent's plan toolset advertises for one tool (spec §10.2).
type toolSpec struct {
	name, title           string
	readOnly, destructive bool
	output                bool
}

var dockerAgentTools = []toolSpec{
	{"write_plan", "Write Plan", false, false, true},
	{"read_plan", "Read Plan", true, false, true},
	{"update_plan_from_file", "Update Plan From File", false, false, true},
	{"export_plan_to_file", "Export Plan To File", false, false, true},
	{"set_plan_status", "Set Plan Status", false, false, true},
	{"get_plan_status", "Get Plan Status", true, false, true},
	{"list_plans", "List Plans", true, false, true},
	{"delete_plan", "Delete Plan", false, true, false},
}

// exercise runs the same conversation against any transport: the tool list, then every tool's
// success and its errors, with docker-agent's exact texts, and checks the file on disk. base is
// where the server resolves relative file paths (its working directory, or the first allowed
// root); denied is a path the server must refuse, "" when it allows any.
func exercise(t *testing.T, cs *mcp.ClientSession, plansDir, base, denied string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "last_known_revision") {
		t.Errorf("server instructions do not explain the shared plans: %q", ins)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK lists tools by name, so docker-agent's order is not visible here; what each tool
	// says about itself is.
	got := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		if strings.Contains(tl.Name, "plan") && tl.Name != "request_plan_approval" {
			got[tl.Name] = tl
		}
	}
	if len(got) != len(dockerAgentTools) {
		t.Fatalf("%d plan tools, want %d", len(got), len(dockerAgentTools))
	}
	for _, want := range dockerAgentTools {
		tl := got[want.name]
		if tl == nil {
			t.Errorf("no tool %s", want.name)
			continue
		}
		a := tl.Annotations
		destructive := a != nil && a.DestructiveHint != nil && *a.DestructiveHint
		if tl.Title != want.title || a == nil || a.Title != want.title || a.ReadOnlyHint != want.readOnly ||
			destructive != want.destructive || (tl.OutputSchema != nil) != want.output {
			t.Errorf("tool %s %q annotations %+v output %v; want %+v", tl.Name, tl.Title, a, tl.OutputSchema != nil, want)
		}
		if s, _ := tl.InputSchema.(map[string]any); s["type"] != "object" {
			t.Errorf("%s input schema %v", tl.Name, tl.InputSchema)
		}
	}

	call := func(name string, args map[string]any) (string, bool, any) {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: protocol error %v (tool errors must be results)", name, err)
		}
		if len(r.Content) != 1 {
			t.Fatalf("%s: %d content blocks", name, len(r.Content))
		}
		return r.Content[0].(*mcp.TextContent).Text, r.IsError, r.StructuredContent
	}
	ok := func(name string, args map[string]any) map[string]any {
		t.Helper()
		text, isErr, structured := call(name, args)
		if isErr {
			t.Fatalf("%s(%v) failed: %s", name, args, text)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("%s: result is not JSON: %s", name, text)
		}
		if name != "delete_plan" && !reflect.DeepEqual(normalize(structured), v) {
			t.Errorf("%s: structured content %v differs from the text %s", name, structured, text)
		}
		return v
	}
	fails := func(name string, args map[string]any, want string) {
		t.Helper()
		text, isErr, _ := call(name, args)
		if !isErr || text != want {
			t.Errorf("%s(%v) = %q (isError %v), want error %q", name, args, text, isErr, want)
		}
	}

	p := ok("write_plan", map[string]any{"name": "release", "content": "Step 1", "title": "Release plan", "author": "planner", "status": "draft"})
	if p["revision"] != 1.0 || p["content"] != "Step 1" {
		t.Fatalf("write_plan = %v", p)
	}
	fails("write_plan", map[string]any{"name": "release", "content": "x", "last_known_revision": 0},
		`version conflict on plan "release": last_known_revision 0 does not match current revision 1; re-read the plan and retry`)
	fails("write_plan", map[string]any{"name": "BAD", "content": "x"},
		`invalid plan name "BAD": use only lowercase letters, digits, '-' and '_', starting with a letter or digit`)
	fails("write_plan", map[string]any{"name": "BAD", "content": ""}, "content must not be empty")
	fails("read_plan", map[string]any{"name": "nope"}, `plan "nope" not found`)
	fails("set_plan_status", map[string]any{"name": "nope", "status": "x", "last_known_revision": 3}, `plan not found: "nope"`)
	fails("set_plan_status", map[string]any{"name": "release", "status": ""}, "status must not be empty")
	if v := ok("set_plan_status", map[string]any{"name": "release", "status": "in-progress", "last_known_revision": 1}); v["revision"] != 2.0 {
		t.Errorf("set_plan_status = %v", v)
	}
	if v := ok("get_plan_status", map[string]any{"name": "release"}); v["status"] != "in-progress" || v["revision"] != 2.0 {
		t.Errorf("get_plan_status = %v", v)
	}
	if v := ok("list_plans", nil); len(v["plans"].([]any)) != 1 {
		t.Errorf("list_plans = %v", v)
	}

	// The file tools: export, edit on disk, update; relative paths resolve against base.
	if v := ok("export_plan_to_file", map[string]any{"name": "release", "path": "out/release.md"}); v["bytesWritten"] != 6.0 || v["content"] != nil {
		t.Errorf("export_plan_to_file = %v", v)
	}
	exported := filepath.Join(base, "out", "release.md")
	if b, err := os.ReadFile(exported); err != nil || string(b) != "Step 1" {
		t.Fatalf("exported file: %q %v", b, err)
	}
	if err := os.WriteFile(exported, []byte("Step 1\nStep 2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v := ok("update_plan_from_file", map[string]any{"name": "release", "path": "out/release.md", "last_known_revision": 2}); v["content"] != "Step 1\nStep 2" {
		t.Errorf("update_plan_from_file = %v", v)
	}
	fails("update_plan_from_file", map[string]any{"name": "release", "path": ""}, "path must not be empty")
	fails("update_plan_from_file", map[string]any{"name": "release", "path": "out/missing.md"}, `file "out/missing.md" does not exist`)
	if denied != "" {
		text, isErr, _ := call("export_plan_to_file", map[string]any{"name": "release", "path": denied})
		if !isErr || !strings.Contains(text, "outside the allowed directories") {
			t.Errorf("export to %s = %q", denied, text)
		}
	}

	// What the tools wrote is docker-agent's file, byte for byte.
	raw, err := os.ReadFile(filepath.Join(plansDir, "release.json"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sharedplans.DecodePlan(raw)
	enc, _ := sharedplans.EncodePlan(plan)
	if err != nil || string(enc) != string(raw) || plan.Revision != 3 || plan.Author != "planner" {
		t.Fatalf("plan file:\n%s", raw)
	}

	fails("delete_plan", map[string]any{"name": "release", "last_known_revision": 1},
		`version conflict on plan "release": last_known_revision 1 does not match current revision 3; re-read the plan and retry`)
	if text, isErr, _ := call("delete_plan", map[string]any{"name": "release"}); isErr || text != `{"deleted":"release"}` {
		t.Errorf("delete_plan = %q", text)
	}
	fails("delete_plan", map[string]any{"name": "release"}, `plan "release" not found`)
}

// normalize turns structured content into what json.Unmarshal of the text gives.
// Anything that does not round-trip through JSON as an object is returned as the error text,
// so the comparison that follows fails and shows it.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return "not JSON: " + err.Error()
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return "not a JSON object: " + err.Error()
	}
	return out
}

// TestSharedPlanToolsInMemory runs the conversation against the server in process.
func TestSharedPlanToolsInMemory(t *testing.T) {
	plansDir, root := t.TempDir(), t.TempDir()
	roots, err := files.NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(mcpserver.Options{Version: "test", SharedPlans: sharedplans.NewToolset(sharedplans.New(plansDir), roots)})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exercise(t, cs, plansDir, root, "/etc/plandash-test.md")
}

// bearer adds the dashboard's token to every request, as an MCP client configured with an
// Authorization header does.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestSharedPlanToolsStreamableHTTP runs the conversation against /mcp on the real router,
// where the file tools are confined to the allowed roots and the token is required.
func TestSharedPlanToolsStreamableHTTP(t *testing.T) {
	plansDir, root := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))},
		DataDir: t.TempDir(), Token: "mcp-token", PlansDir: plansDir, AllowRoots: []string{root}, AllowWrite: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Server.Handler())
	defer hs.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)

	if cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", MaxRetries: -1}, nil); err == nil {
		cs.Close()
		t.Fatal("connected to /mcp without the token")
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{"mcp-token", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exercise(t, cs, plansDir, root, "/etc/plandash-test.md")
}

// TestSharedPlanToolsStdio builds plandash and runs `plandash mcp` as a process, the way
// Claude Code, Zed, Codex or docker-agent launch it; relative file paths resolve against its
// working directory, as docker-agent's do.
func TestSharedPlanToolsStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "plandash")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "github.com/plandash/plandash/cmd/plandash").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	plansDir, work, home := t.TempDir(), t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "mcp", "--plans-dir", plansDir)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+home, "PLANDASH_TOKEN=")
	cmd.Stderr = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, cs, plansDir, work, "")
	if err := cs.Close(); err != nil {
		t.Logf("closing the stdio session: %v", err)
	}
}

// testWriter sends the child's stderr to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Logf("plandash mcp: %s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

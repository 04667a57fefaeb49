package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/web"
)

// TestHookClaudeCommand: `plandash hook claude` posts the event on stdin to the dashboard, prints
// nothing for a capture, and exits 0 silently when the dashboard is down.
func TestHookClaudeCommand(t *testing.T) {
	srv, err := app.Open(context.Background(), app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: t.TempDir(), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	event, err := os.ReadFile("../../internal/agents/claude/testdata/post_todowrite.json")
	if err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "" }
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"hook", "claude", "--server", ts.URL, "--token", "tok"}, env, bytes.NewReader(event), &out, &errOut); err != nil || out.Len() != 0 {
		t.Fatalf("hook: %v, printed %q %q", err, out.String(), errOut.String())
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/sessions/"+url.PathEscape("claude-code:3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c"), nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(raw), `"todos"`) {
		t.Fatalf("the session after the hook: %d %s", resp.StatusCode, raw)
	}
	// Down: nothing printed, no error, so Claude Code goes on.
	out.Reset()
	if err := run(context.Background(), []string{"hook", "claude", "--server", "http://127.0.0.1:1", "--token", "tok"}, env, bytes.NewReader(event), &out, &errOut); err != nil || out.Len() != 0 {
		t.Fatalf("hook with the dashboard down: %v, printed %q", err, out.String())
	}
}

// TestInstallClaudeCommand: install merges the hooks into the project's settings, keeps the
// user's own, is idempotent, and uninstall takes only plandash's away.
func TestInstallClaudeCommand(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`
	if err := os.WriteFile(settings, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "" }
	install := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(context.Background(), append([]string{"install", "claude", "--project", dir}, args...), env, nil, &out, &errOut); err != nil {
			t.Fatalf("install %v: %v %s", args, err, errOut.String())
		}
		return out.String()
	}
	install("--gate")
	var got struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Command string }
		}
	}
	b, _ := os.ReadFile(settings)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Model != "opus" || !strings.Contains(string(b), "notify-send done") || !strings.Contains(string(b), "hook claude") || len(got.Hooks["PermissionRequest"]) != 1 {
		t.Fatalf("settings after install: %s", b)
	}
	install("--gate")
	if b2, err := os.ReadFile(settings); err != nil || !bytes.Equal(b, b2) {
		t.Fatalf("a second install changed the file:\n%s\n%s", b, b2)
	}
	install("--uninstall")
	b, rerr := os.ReadFile(settings)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if strings.Contains(string(b), "hook claude") || !strings.Contains(string(b), "notify-send done") {
		t.Fatalf("settings after uninstall: %s", b)
	}
	if err := os.WriteFile(settings, []byte("{\n  \"hooks\": ,\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"install", "claude", "--project", dir}, env, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("install over invalid JSON: %v", err)
	}
}

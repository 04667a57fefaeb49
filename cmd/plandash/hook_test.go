package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	ts := httptest.NewServer(srv.Server.Handler())
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
	bin := fakeBinary(t)
	install := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(context.Background(), append([]string{"install", "claude", "--project", dir, "--shared", "--command", bin}, args...), env, nil, &out, &errOut); err != nil {
			t.Fatalf("install %v: %v %s", args, err, errOut.String())
		}
		return out.String()
	}
	install("--gate", "--server", "http://127.0.0.1:7420", "--token", "tok-install")
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
	if cmd := got.Hooks["PermissionRequest"][0].Hooks[0].Command; !strings.HasSuffix(cmd, " hook claude --server http://127.0.0.1:7420 --token tok-install") {
		t.Fatalf("the gate's hook command is %q", cmd)
	}
	install("--gate", "--server", "http://127.0.0.1:7420", "--token", "tok-install")
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
	err := run(context.Background(), []string{"install", "claude", "--project", dir, "--shared", "--command", bin}, env, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("install over invalid JSON: %v", err)
	}
}

// BenchmarkHookClaudeProcess is the cost a capture hook adds to Claude Code: the wall time from
// starting the real `plandash hook claude` binary to its exit, posting one PostToolUse event
// to a running dashboard ("up"), and to an address nobody listens on ("down": Claude Code must
// be unaffected when plandash is not running). Claude Code runs these hooks async, so this is
// CPU and a process slot, not latency on its turn, except for the gate.
func BenchmarkHookClaudeProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "plandash")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	event, err := os.ReadFile("../../internal/agents/claude/testdata/post_todowrite.json")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := app.Open(context.Background(), app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: b.TempDir(), Token: "tok"})
	if err != nil {
		b.Fatal(err)
	}
	// The real server, served as plandash serve does (capture events are acknowledged once read).
	served, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, served) }()
	b.Cleanup(func() { cancel(); <-done })
	ts := struct{ URL string }{"http://" + served.Addr().String()}
	// A port that was just listened on and closed: connections to it are refused at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	if err := ln.Close(); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, server string }{{"up", ts.URL}, {"down", dead}} {
		b.Run(bc.name, func(b *testing.B) {
			home := b.TempDir() // no user's token file or settings may play a part
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				cmd := exec.Command(bin, "hook", "claude", "--server", bc.server, "--token", "tok")
				cmd.Stdin = bytes.NewReader(event)
				cmd.Env = []string{"HOME=" + home}
				out, err := cmd.CombinedOutput()
				if err != nil || len(out) != 0 {
					b.Fatalf("hook: %v, printed %q", err, out)
				}
				ds = append(ds, time.Since(start))
			}
			reportPercentiles(b, ds)
		})
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/client"
)

// install says where the hooks will report and whether that works: hooks themselves stay silent,
// so a server that is down, a wrong token or the demo in the way would otherwise leave the page
// empty with no word why.
func TestInstallReportsWhereTheHooksReport(t *testing.T) {
	env := testEnv(t)
	bin := fakeBinary(t)
	install := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append([]string{"install", "claude", "--project", t.TempDir(), "--command", bin}, args...)
		if err := run(context.Background(), args, env, nil, &out, &errOut); err != nil {
			t.Fatalf("install: %v %s", err, errOut.String())
		}
		return out.String()
	}
	if out := install("--server", "http://127.0.0.1:1"); !strings.Contains(out, "✗ nothing answers at http://127.0.0.1:1: start `plandash serve`") {
		t.Errorf("against a server that is down:\n%s", out)
	}

	// The demo runs (in its own data directory) while the user's data directory has the token of
	// a server that is not running: the demo refuses that token, and install says why.
	demoDir := demoDataDir(env)
	demo := startServerEnv(t, env, "demo", "--addr", "127.0.0.1:0", "--data", demoDir, "--plans-dir", filepath.Join(t.TempDir(), "plans"))
	userData := client.DefaultDataDir(env)
	if err := os.MkdirAll(userData, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(client.TokenFile(userData), []byte("token-of-another-server\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := install("--server", demo.base); !strings.Contains(out, "✗ token refused: the server at "+demo.base+" is the demo; use --data "+demoDir) {
		t.Errorf("against the demo with the user's token:\n%s", out)
	}
	if out := install("--server", demo.base, "--token", "wrong"); !strings.Contains(out, "✗ token refused") {
		t.Errorf("with a wrong token:\n%s", out)
	}
	if out := install("--server", demo.base, "--data", demoDir); !strings.Contains(out, "✓ reporting to "+demo.base+" (token accepted)") {
		t.Errorf("with the demo's own data directory:\n%s", out)
	}
}

// doctor checks what a user can get wrong, one line each with the fix, exit 1 when something
// is; on a healthy set-up every line is ✓ (or ·, nothing installed) and --test-event puts a
// session on the page.
func TestDoctor(t *testing.T) {
	env := testEnv(t)
	home := env("HOME")
	data := client.DefaultDataDir(env)
	bin := fakeBinary(t)
	claudeDir := filepath.Join(home, ".claude")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"install", "claude", "--gate", "--command", bin}, env, nil, &out, &errOut); err != nil {
		t.Fatalf("install: %v %s", err, errOut.String())
	}

	// Broken: no server, and the hooks' binary is gone.
	if err := os.Rename(bin, bin+".gone"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	down := func(k string) string { // a port nothing listens on, whatever runs on this machine
		if k == "PLANDASH_SERVER" {
			return "http://127.0.0.1:1"
		}
		return env(k)
	}
	err := run(context.Background(), []string{"doctor", "--project", t.TempDir()}, down, nil, &out, &errOut)
	if err != exitCode(1) {
		t.Fatalf("doctor on a broken set-up: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"server:   ✗ nothing answers at http://127.0.0.1:1",
		"claude:   ✗ the hooks in " + filepath.Join(claudeDir, "settings.json") + " run " + bin + ", which is not there",
		"gemini:   · no hooks installed: `plandash install gemini --gate`",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor does not say %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "claude:   ✗"); n != 1 {
		t.Errorf("the missing binary is reported %d times, want once per file:\n%s", n, out.String())
	}

	// Healthy: the server runs on the user's data directory and the binary is back.
	if err := os.Rename(bin+".gone", bin); err != nil {
		t.Fatal(err)
	}
	s := startServerEnv(t, env, "serve", "--addr", "127.0.0.1:0", "--data", data)
	out.Reset()
	if err := run(context.Background(), []string{"doctor", "--test-event", "--project", t.TempDir()}, env, nil, &out, &errOut); err != nil {
		t.Fatalf("doctor on a healthy set-up: %v\n%s", err, out.String())
	}
	for _, want := range []string{"server:   ✓ reporting to " + s.base, "test:     ✓", "claude:   ✓ hooks in " + filepath.Join(claudeDir, "settings.json") + " run " + bin} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor does not say %q:\n%s", want, out.String())
		}
	}
	var sess struct{ Session struct{ ID string } }
	s.getJSON(t, "/api/v1/sessions/plandash-doctor", &sess)
	if sess.Session.ID != "plandash-doctor" {
		t.Errorf("the test event's session is not on the server: %+v", sess)
	}
}

// doctor's tested versions are the ones the real-CLI tests install.
func TestTestedVersionsMatchTheInstallScript(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "scripts", "agent-clis.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range registry.All() {
		if a.CLI == "" {
			continue
		}
		want := strings.ToUpper(a.Name) + "_VERSION=" + a.Tested
		if !strings.Contains(string(b), want) {
			t.Errorf("scripts/agent-clis.sh has no %s: doctor and the tests disagree on %s's version", want, a.Name)
		}
	}
}

// TestDoctorOlderHooks: hooks a current `plandash install codex` wrote pass; the same file as an
// older plandash wrote it (Stop alone, before questions and turn ends) is reported with its fix.
func TestDoctorOlderHooks(t *testing.T) {
	env := testEnv(t)
	bin := fakeBinary(t)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"install", "codex", "--command", bin}, env, nil, &out, &errOut); err != nil {
		t.Fatalf("install: %v %s", err, errOut.String())
	}
	path := filepath.Join(env("HOME"), ".codex", "hooks.json")
	codex, _ := registry.Lookup("codex")
	if got := missingEvents(codex, path); len(got) != 0 {
		t.Fatalf("a fresh install misses %v", got)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	older, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": v.Hooks["Stop"]}})
	if err := os.WriteFile(path, older, 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	_ = run(context.Background(), []string{"doctor", "--project", t.TempDir()}, env, nil, &out, &errOut)
	want := "codex:    ✗ the hooks in " + path + " are from an older plandash: nothing runs on PreToolUse, PostToolUse, UserPromptSubmit"
	if !strings.Contains(out.String(), want) {
		t.Errorf("doctor does not say %q:\n%s", want, out.String())
	}
}

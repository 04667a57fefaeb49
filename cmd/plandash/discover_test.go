package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/registry"
)

// TestServeDiscoverFlags: --discover-days outside 1–3650 is a usage error that says what is
// allowed and how to turn discovery off; where agents keep their sessions follows HOME,
// CLAUDE_CONFIG_DIR, CODEX_HOME and XDG_DATA_HOME, and --discover=false reads none of them.
func TestServeDiscoverFlags(t *testing.T) {
	env := func(k string) string { return map[string]string{"HOME": "/home/dev"}[k] }
	for _, days := range []string{"0", "-3", "4000"} {
		_, stderr, err := runOut(t, env, "", "serve", "--data", t.TempDir(), "--discover-days", days)
		if !errors.Is(err, errUsage) || !strings.Contains(stderr, "--discover-days must be 1 to 3650") || !strings.Contains(stderr, "--discover=false") {
			t.Errorf("--discover-days %s: %v %q", days, err, stderr)
		}
	}
	// Every agent that keeps session files is read from under HOME; a few are checked exactly.
	got := discoverDirs(true, codexSessions(env, false), env)
	for _, a := range registry.All() {
		if dir, ok := got[a.Name]; ok != (a.Sessions != nil) || ok && !strings.HasPrefix(dir, "/home/dev/") {
			t.Errorf("discoverDirs[%s] = %q (%v); want a directory under HOME exactly when the agent keeps sessions", a.Name, dir, ok)
		}
	}
	for name, want := range map[string]string{
		"claude":   "/home/dev/.claude/projects",
		"codex":    "/home/dev/.codex/sessions",
		"gemini":   "/home/dev/.gemini/tmp",
		"opencode": "/home/dev/.local/share/opencode/opencode.db",
	} {
		if got[name] != want {
			t.Errorf("discoverDirs[%s] = %q, want %q", name, got[name], want)
		}
	}
	if got := discoverDirs(false, "/x", env); len(got) != 0 {
		t.Errorf("--discover=false reads %v", got)
	}
	if codexSessions(env, true) != "" {
		t.Error("the demo follows Codex's rollouts")
	}
	for _, c := range []struct{ agent, key, value, want string }{
		{"claude", "CLAUDE_CONFIG_DIR", "/cfg", "/cfg/projects"},
		{"codex", "CODEX_HOME", "/ch", "/ch/sessions"},
		{"opencode", "XDG_DATA_HOME", "/d", "/d/opencode/opencode.db"},
	} {
		a, _ := registry.Lookup(c.agent)
		if got := a.Sessions(func(k string) string { return map[string]string{"HOME": "/h", c.key: c.value}[k] }); got != c.want {
			t.Errorf("%s's sessions with %s=%s: %q, want %q", c.agent, c.key, c.value, got, c.want)
		}
	}
}

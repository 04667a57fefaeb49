package main

import (
	"errors"
	"strings"
	"testing"
)

// TestServeDiscoverFlags: --discover-days outside 1–3650 is a usage error that says what is
// allowed and how to turn discovery off; where agents keep their sessions follows HOME and
// CLAUDE_CONFIG_DIR, and --discover=false reads none of them.
func TestServeDiscoverFlags(t *testing.T) {
	env := func(k string) string { return map[string]string{"HOME": "/home/dev"}[k] }
	for _, days := range []string{"0", "-3", "4000"} {
		_, stderr, err := runOut(t, env, "", "serve", "--data", t.TempDir(), "--discover-days", days)
		if !errors.Is(err, errUsage) || !strings.Contains(stderr, "--discover-days must be 1 to 3650") || !strings.Contains(stderr, "--discover=false") {
			t.Errorf("--discover-days %s: %v %q", days, err, stderr)
		}
	}
	if got := claudeProjects(env); got != "/home/dev/.claude/projects" {
		t.Errorf("claudeProjects = %q", got)
	}
	if got := claudeProjects(func(k string) string { return map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/cfg"}[k] }); got != "/cfg/projects" {
		t.Errorf("claudeProjects with CLAUDE_CONFIG_DIR = %q", got)
	}
	if got := homeDir(env, ".gemini", "tmp"); got != "/home/dev/.gemini/tmp" {
		t.Errorf("homeDir = %q", got)
	}
	if got := openCodeDB(env); got != "/home/dev/.local/share/opencode/opencode.db" {
		t.Errorf("openCodeDB = %q", got)
	}
	if got := openCodeDB(func(k string) string { return map[string]string{"XDG_DATA_HOME": "/d"}[k] }); got != "/d/opencode/opencode.db" {
		t.Errorf("openCodeDB with XDG_DATA_HOME = %q", got)
	}
	if discovered(false, "/home/dev/.claude/projects") != "" || discovered(true, "/x") != "/x" {
		t.Error("discovered does not follow --discover")
	}
}

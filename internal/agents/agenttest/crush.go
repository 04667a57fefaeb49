package agenttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CrushModel is the model id the harness's custom provider offers Crush.
const CrushModel = "claude-agenttest"

// Crush is Crush set up to run against a ModelServer: a custom provider of type "anthropic"
// whose base_url is the server, the only provider (the default ones and their online update are
// off), written with the test's settings to the global crush.json under a throwaway
// XDG_CONFIG_HOME. Crush keeps its session database in the project (.crush/crush.db).
//
// Crush's npm package downloads its binary from GitHub releases, which some machines cannot
// reach; PLANDASH_CRUSH names a binary to use instead (one built from Crush's source, say).
type Crush struct {
	// Argv runs the CLI (see Command).
	Argv []string
	// Home is the throwaway HOME.
	Home string
	// Config is the global crush.json the settings were written to.
	Config string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewCrush prepares Crush against srv with settings merged over the harness's provider
// configuration (put "hooks" there). It skips the test when the CLI is not installed.
func NewCrush(t testing.TB, srv *ModelServer, settings map[string]any) *Crush {
	t.Helper()
	argv := Command(t, "crush")
	root := t.TempDir()
	c := &Crush{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = dir
	model := map[string]any{"model": CrushModel, "provider": "agenttest"}
	all := map[string]any{
		"providers": map[string]any{"agenttest": map[string]any{"type": "anthropic", "base_url": srv.URL, "api_key": "agenttest-crush-key",
			"models": []any{map[string]any{"id": CrushModel, "name": "Agenttest", "context_window": 200000, "default_max_tokens": 4096}}}},
		"models":  map[string]any{"large": model, "small": model},
		"options": map[string]any{"disable_provider_auto_update": true, "disable_default_providers": true, "disable_metrics": true},
	}
	for k, v := range settings {
		all[k] = v
	}
	c.Config = filepath.Join(c.Home, ".config", "crush", "crush.json")
	writeJSONFile(t, c.Config, all)
	c.Env = append(baseEnv(t, c.Home), "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1", "TERM=xterm-256color")
	return c
}

// Run runs `crush run --quiet PROMPT` (non-interactive) to completion or timeout. The question
// tool is not offered there.
func (c *Crush) Run(timeout time.Duration, prompt string) Result {
	c.t.Helper()
	return runCLI(c.t, timeout, c.Dir, c.Env, append(append([]string(nil), c.Argv...), "run", "--quiet", prompt))
}

// Interactive starts the TUI under tmux and waits until it is ready for a prompt.
func (c *Crush) Interactive(args ...string) *Tmux {
	c.t.Helper()
	x := StartTmux(c.t, c.Dir, c.Env, append(append([]string(nil), c.Argv...), args...)...)
	x.WaitScreen(2*time.Minute, "ctrl+p commands")
	return x
}

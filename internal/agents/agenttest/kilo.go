package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// KiloModel is the model id the harness configures Kilo Code's CLI with: the built-in
// "anthropic" provider pointed at the ModelServer's Messages API.
const KiloModel = "anthropic/claude-sonnet-4-5"

// Kilo is Kilo Code's CLI (an OpenCode fork: its OPENCODE_* settings are KILO_*) set up to run
// against a ModelServer: its config (inline through KILO_CONFIG_CONTENT) points the anthropic
// provider's baseURL at the server, and every network fetch it would make on its own (models
// list, updates, LSP downloads, default plugins, sharing, session ingest) is switched off.
type Kilo struct {
	// Argv runs the CLI (see Command).
	Argv []string
	// Home is the throwaway HOME (Kilo keeps its data under XDG dirs inside it).
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewKilo prepares Kilo against srv; config is merged over the harness's (put "permission",
// "agent", … there). It skips the test when the CLI is not installed.
func NewKilo(t testing.TB, srv *ModelServer, config map[string]any) *Kilo {
	t.Helper()
	argv := Command(t, "kilo")
	root := t.TempDir()
	k := &Kilo{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(k.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(k.Dir)
	if err != nil {
		t.Fatal(err)
	}
	k.Dir = dir
	all := map[string]any{
		"model":      KiloModel,
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"anthropic": map[string]any{
			"options": map[string]any{"baseURL": srv.URL + "/v1", "apiKey": ClaudeKey},
			"models":  map[string]any{"claude-sonnet-4-5": map[string]any{"name": "Claude Sonnet 4.5 (agenttest)"}},
		}},
	}
	for key, v := range config {
		all[key] = v
	}
	content, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	k.Env = append(baseEnv(t, k.Home),
		"KILO_CONFIG_CONTENT="+string(content),
		"KILO_DISABLE_MODELS_FETCH=1",
		"KILO_DISABLE_AUTOUPDATE=1",
		"KILO_DISABLE_DEFAULT_PLUGINS=1",
		"KILO_DISABLE_LSP_DOWNLOAD=1",
		"KILO_DISABLE_SHARE=1",
		"KILO_DISABLE_CLAUDE_CODE=1",
		"KILO_DISABLE_SESSION_INGEST=1",
		"TERM=xterm-256color",
	)
	return k
}

// Run runs `kilo run --format json -m KiloModel ARGS… PROMPT` to completion or timeout; stdout
// is its JSON event lines.
func (k *Kilo) Run(timeout time.Duration, prompt string, args ...string) Result {
	k.t.Helper()
	argv := append(append([]string(nil), k.Argv...), "run", "--format", "json", "-m", KiloModel)
	return runCLI(k.t, timeout, k.Dir, k.Env, append(append(argv, args...), prompt))
}

// Interactive starts Kilo's terminal UI with args under tmux and waits until it draws.
func (k *Kilo) Interactive(wait string, args ...string) *Tmux {
	k.t.Helper()
	x := StartTmux(k.t, k.Dir, k.Env, append(append([]string(nil), k.Argv...), args...)...)
	x.WaitScreen(2*time.Minute, wait)
	return x
}

// Serve starts `kilo serve` (the headless server, OpenCode's API) on a free loopback port and
// subscribes to its events; the server is stopped in t.Cleanup. KiloModel and OpenCodeModel
// are the same model, so the server's Prompt serves Kilo too.
func (k *Kilo) Serve() *OpenCodeServer {
	k.t.Helper()
	o := &OpenCode{Argv: k.Argv, Home: k.Home, Dir: k.Dir, Env: k.Env, t: k.t}
	return o.Serve()
}

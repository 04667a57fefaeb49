package agenttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PiKey is the API key the harness gives Pi's scripted provider.
const PiKey = "agenttest-pi-key"

// PiProvider and PiModel are the custom provider and model the harness configures.
const (
	PiProvider = "agenttest"
	PiModel    = "claude-agenttest"
)

// Pi is Pi (@mariozechner/pi-coding-agent) set up to run against a ModelServer: a throwaway
// HOME whose ~/.pi/agent/models.json names one custom provider speaking Anthropic Messages
// ("api": "anthropic-messages") at the server's URL, started offline (no update check, no
// telemetry). Extensions go in Home/.pi/agent/extensions, where Pi discovers them.
type Pi struct {
	// Argv runs the CLI (node and its entry point; see Command).
	Argv []string
	// Home is the throwaway HOME; AgentDir is its ~/.pi/agent.
	Home, AgentDir string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewPi prepares Pi against srv. It skips the test when the CLI is not installed.
func NewPi(t testing.TB, srv *ModelServer) *Pi {
	t.Helper()
	argv := Command(t, "pi")
	root := t.TempDir()
	p := &Pi{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	p.AgentDir = filepath.Join(p.Home, ".pi", "agent")
	p.Dir = mkdirReal(t, p.Dir)
	writeJSONFile(t, filepath.Join(p.AgentDir, "models.json"), map[string]any{
		"providers": map[string]any{PiProvider: map[string]any{
			"baseUrl": srv.URL, "api": "anthropic-messages", "apiKey": PiKey,
			"models": []any{map[string]any{"id": PiModel, "name": "agenttest", "reasoning": false,
				"contextWindow": 200000, "maxTokens": 8192}},
		}},
	})
	writeJSONFile(t, filepath.Join(p.AgentDir, "settings.json"), map[string]any{
		"defaultProvider": PiProvider, "defaultModel": PiModel, "enableInstallTelemetry": false,
	})
	p.Env = append(baseEnv(t, p.Home), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "TERM=xterm-256color")
	return p
}

// Print runs `pi -p PROMPT ARGS…` (print mode) with the harness's provider and model, to
// completion or timeout.
func (p *Pi) Print(timeout time.Duration, prompt string, args ...string) Result {
	p.t.Helper()
	argv := append(append([]string(nil), p.Argv...), "--provider", PiProvider, "--model", PiModel, "-p")
	argv = append(append(argv, args...), prompt)
	return runCLI(p.t, timeout, p.Dir, p.Env, argv)
}

// Interactive starts the interactive CLI with args under tmux and waits until it shows its
// editor. Extensions' dialogs (ctx.ui) need it: print mode has no UI.
func (p *Pi) Interactive(args ...string) *Tmux {
	p.t.Helper()
	argv := append(append([]string(nil), p.Argv...), "--provider", PiProvider, "--model", PiModel)
	x := StartTmux(p.t, p.Dir, p.Env, append(argv, args...)...)
	x.WaitScreen(2*time.Minute, PiModel)
	return x
}

// mkdirReal makes dir and returns its real path (the CLIs report cwd with symlinks resolved).
func mkdirReal(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

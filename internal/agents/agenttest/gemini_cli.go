package agenttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// GeminiKey is the API key the harness gives Gemini CLI (GEMINI_API_KEY).
const GeminiKey = "agenttest-gemini-key"

// Gemini is Gemini CLI set up to run against a ModelServer: GOOGLE_GEMINI_BASE_URL names the
// server (the CLI accepts plain http only for loopback), GEMINI_API_KEY selects API-key auth,
// and a throwaway HOME holds ~/.gemini/settings.json with the test's settings (user settings,
// so their hooks count as trusted).
type Gemini struct {
	// Argv runs the CLI (node and its bundle; see Command).
	Argv []string
	// Home is the throwaway HOME.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewGemini prepares Gemini CLI against srv. settings is merged over the harness's defaults
// (API-key auth, no update checks, the project folder trusted) and written as the user
// settings file; put "hooks" there. It skips the test when the CLI is not installed.
func NewGemini(t testing.TB, srv *ModelServer, settings map[string]any) *Gemini {
	t.Helper()
	argv := Command(t, "gemini")
	root := t.TempDir()
	g := &Gemini{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(g.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	g.Dir = dir
	all := map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false},
		},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
	}
	for k, v := range settings {
		all[k] = v
	}
	writeJSONFile(t, filepath.Join(g.Home, ".gemini", "settings.json"), all)
	g.Env = append(baseEnv(t, g.Home),
		"GOOGLE_GEMINI_BASE_URL="+srv.URL,
		"GEMINI_API_KEY="+GeminiKey,
		"GEMINI_CLI_NO_RELAUNCH=true",
		"TERM=xterm-256color",
	)
	return g
}

// Prompt runs `gemini -p PROMPT ARGS…` (non-interactive) to completion or timeout.
func (g *Gemini) Prompt(timeout time.Duration, prompt string, args ...string) Result {
	g.t.Helper()
	return runCLI(g.t, timeout, g.Dir, g.Env, append(append(append([]string(nil), g.Argv...), "-p", prompt), args...))
}

// Interactive starts the interactive CLI with args under tmux and waits until it is ready for
// a prompt. Some tools run only there: ask_user, for one, shows a dialog.
func (g *Gemini) Interactive(args ...string) *Tmux {
	g.t.Helper()
	x := StartTmux(g.t, g.Dir, g.Env, append(append([]string(nil), g.Argv...), args...)...)
	x.WaitScreen(2*time.Minute, "Type your message")
	return x
}

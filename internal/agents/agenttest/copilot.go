package agenttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CopilotModel is the model the harness names to Copilot CLI: a well-known id, so the CLI uses
// its Anthropic prompts and token limits.
const CopilotModel = "claude-sonnet-4.5"

// Copilot is GitHub Copilot CLI set up to run against a ModelServer with no GitHub login: its
// "bring your own key" mode (COPILOT_PROVIDER_BASE_URL, `copilot help providers`) speaks
// Anthropic's Messages API to the server, COPILOT_OFFLINE keeps it off GitHub's services, and a
// throwaway HOME holds ~/.copilot/settings.json with the test's settings (user-level hooks).
type Copilot struct {
	// Argv runs the CLI (the native binary; see Command).
	Argv []string
	// Home is the throwaway HOME; sessions land in Home/.copilot/session-state.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewCopilot prepares Copilot CLI against srv with settings written as the user settings file
// (put "hooks" there; nil writes none). It skips the test when the CLI is not installed.
func NewCopilot(t testing.TB, srv *ModelServer, settings map[string]any) *Copilot {
	t.Helper()
	argv := Command(t, "copilot")
	root := t.TempDir()
	c := &Copilot{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = dir
	all := map[string]any{"banner": "never", "autoUpdate": false}
	for k, v := range settings {
		all[k] = v
	}
	writeJSONFile(t, filepath.Join(c.Home, ".copilot", "settings.json"), all)
	c.Env = append(baseEnv(t, c.Home),
		"COPILOT_PROVIDER_BASE_URL="+srv.URL,
		"COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_API_KEY=agenttest-copilot-key",
		"COPILOT_MODEL="+CopilotModel,
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
		// The binary unpacks its runtime (about 200 MB) on first start; one copy beside the
		// install serves every test instead of one per throwaway HOME.
		"COPILOT_CACHE_HOME="+filepath.Join(filepath.Dir(argv[0]), "..", "..", "..", "cache"),
		"TERM=xterm-256color",
	)
	return c
}

// SessionDir is where Copilot CLI keeps the session's state (plan.md, session.db, events.jsonl).
func (c *Copilot) SessionDir(sessionID string) string {
	return filepath.Join(c.Home, ".copilot", "session-state", sessionID)
}

// Prompt runs `copilot -p PROMPT --allow-all-tools ARGS…` (non-interactive, which needs every
// tool allowed) to completion or timeout.
func (c *Copilot) Prompt(timeout time.Duration, prompt string, args ...string) Result {
	c.t.Helper()
	argv := append(append([]string(nil), c.Argv...), "-p", prompt, "--allow-all-tools")
	return runCLI(c.t, timeout, c.Dir, c.Env, append(argv, args...))
}

// Interactive starts the interactive CLI with args (e.g. "--plan") under tmux, trusts the
// project folder when asked, and waits until it is ready for a prompt. Plan mode's
// exit_plan_mode is offered only here.
func (c *Copilot) Interactive(args ...string) *Tmux {
	c.t.Helper()
	x := StartTmux(c.t, c.Dir, c.Env, append(append([]string(nil), c.Argv...), args...)...)
	x.WaitScreen(2*time.Minute, "Do you trust the files in this folder?")
	x.Answer("Do you trust the files in this folder?", time.Minute, "Enter")
	x.WaitScreen(time.Minute, "/ commands")
	return x
}

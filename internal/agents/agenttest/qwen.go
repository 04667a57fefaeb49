package agenttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// QwenKey is the API key the harness gives Qwen Code (ANTHROPIC_API_KEY); the model server
// ignores it.
const QwenKey = "sk-ant-agenttest-qwen"

// QwenModel is the model name Qwen Code sends; the model server answers any.
const QwenModel = "claude-agenttest"

// Qwen is Qwen Code set up to run against a ModelServer through its Anthropic provider
// (--auth-type anthropic, with ANTHROPIC_BASE_URL naming the server), and a throwaway HOME
// holding ~/.qwen/settings.json with the test's settings (user settings, so their hooks count
// as trusted).
type Qwen struct {
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

// NewQwen prepares Qwen Code against srv. settings is merged over the harness's defaults
// (Anthropic auth, no update checks or telemetry, folder trust off) and written as the user
// settings file; put "hooks" there. It skips the test when the CLI is not installed.
func NewQwen(t testing.TB, srv *ModelServer, settings map[string]any) *Qwen {
	t.Helper()
	argv := Command(t, "qwen")
	root := t.TempDir()
	q := &Qwen{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(q.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(q.Dir)
	if err != nil {
		t.Fatal(err)
	}
	q.Dir = dir
	all := map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "anthropic"},
			"folderTrust": map[string]any{"enabled": false},
		},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"model":     map[string]any{"name": QwenModel},
	}
	for k, v := range settings {
		all[k] = v
	}
	writeJSONFile(t, filepath.Join(q.Home, ".qwen", "settings.json"), all)
	q.Env = append(baseEnv(t, q.Home),
		"ANTHROPIC_BASE_URL="+srv.URL,
		"ANTHROPIC_API_KEY="+QwenKey,
		"ANTHROPIC_MODEL="+QwenModel,
		"TERM=xterm-256color",
	)
	return q
}

// Prompt runs `qwen PROMPT ARGS…` (one-shot, non-interactive) to completion or timeout.
func (q *Qwen) Prompt(timeout time.Duration, prompt string, args ...string) Result {
	q.t.Helper()
	argv := append(append(append([]string(nil), q.Argv...), "--auth-type", "anthropic"), args...)
	return runCLI(q.t, timeout, q.Dir, q.Env, append(argv, prompt))
}

// Interactive starts the interactive CLI with args under tmux and waits until it is ready for
// a prompt. Plan approval and questions show dialogs only there.
func (q *Qwen) Interactive(args ...string) *Tmux {
	q.t.Helper()
	argv := append(append(append([]string(nil), q.Argv...), "--auth-type", "anthropic"), args...)
	x := StartTmux(q.t, q.Dir, q.Env, argv...)
	x.WaitScreen(2*time.Minute, "Type your message")
	return x
}

package agenttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Amp is Amp's CLI (@ampcode/cli) in a throwaway HOME. Amp's threads run on ampcode.com: with
// no account it starts a browser login, and pointed at another server (AMP_URL) it first asks
// that server for the user (POST /api/internal?getUserInfo), so its agent loop does not run
// here. What does run offline is its plugin runtime: `amp plugins exec PLUGIN EVENT --data
// JSON` loads a plugin the way Amp does and hands it one event (in 0.0.1790142911-g7618fb only
// session.start reaches the plugin's handler that way; the request events, tool.call,
// tool.result, agent.start and agent.end, do not).
type Amp struct {
	// Argv runs the CLI (see Command).
	Argv []string
	// Home is the throwaway HOME.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewAmp prepares Amp's CLI. It skips the test when the CLI is not installed.
func NewAmp(t testing.TB) *Amp {
	t.Helper()
	argv := Command(t, "amp")
	root := t.TempDir()
	a := &Amp{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(a.Dir)
	if err != nil {
		t.Fatal(err)
	}
	a.Dir = dir
	a.Env = append(baseEnv(t, a.Home), "AMP_URL=http://127.0.0.1:9", "AMP_API_KEY=agenttest-amp-key")
	return a
}

// PluginExec runs `amp plugins exec PLUGIN EVENT --data DATA` to completion or timeout.
func (a *Amp) PluginExec(timeout time.Duration, plugin, event, data string) Result {
	a.t.Helper()
	argv := append(append([]string(nil), a.Argv...), "plugins", "exec", plugin, event, "--data", data)
	return runCLI(a.t, timeout, a.Dir, a.Env, argv)
}

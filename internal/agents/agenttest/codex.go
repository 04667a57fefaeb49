package agenttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// CodexKey is the API key the harness gives Codex (through FAKE_KEY, as config.toml names it).
const CodexKey = "sk-agenttest-codex"

// Codex is the Codex CLI set up to run against a ModelServer: a CODEX_HOME whose config.toml
// names the server as the model provider (shared/spec/agents.md §11), and a project directory.
type Codex struct {
	// Argv runs the CLI (see Command).
	Argv []string
	// Home is CODEX_HOME; rollouts land in Home/sessions/YYYY/MM/DD.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewCodex prepares Codex against srv. extraConfig is appended to config.toml verbatim (e.g.
// "[features]\nhooks = true\n"); hooks, when not nil, is written as CODEX_HOME/hooks.json
// (the {"hooks": {"Stop": [...]}} wrapper shape) and trusted (see TrustHooks). It skips the
// test when the CLI is not installed (see Command).
func NewCodex(t testing.TB, srv *ModelServer, extraConfig string, hooks any) *Codex {
	t.Helper()
	argv := Command(t, "codex")
	root := t.TempDir()
	c := &Codex{Argv: argv, Home: filepath.Join(root, "codex-home"), Dir: filepath.Join(root, "project"), t: t}
	for _, d := range []string{c.Home, c.Dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := filepath.EvalSymlinks(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = dir
	config := `model = "gpt-5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "` + srv.URL + `/v1"
wire_api = "responses"
env_key = "FAKE_KEY"
# One attempt: a scripted server that fails is a test bug, and retries only add waiting.
request_max_retries = 0
stream_max_retries = 0

[projects."` + c.Dir + `"]
trust_level = "trusted"
` + extraConfig
	if err := os.WriteFile(filepath.Join(c.Home, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if hooks != nil {
		writeJSONFile(t, filepath.Join(c.Home, "hooks.json"), hooks)
	}
	c.Env = append(baseEnv(t, filepath.Join(root, "home")),
		"CODEX_HOME="+c.Home,
		"FAKE_KEY="+CodexKey,
		"TERM=xterm-256color",
	)
	if hooks != nil {
		c.TrustHooks()
	}
	return c
}

// Exec runs `codex exec --skip-git-repo-check --json PROMPT ARGS…` to completion or timeout.
// Stdout is the JSONL event stream.
func (c *Codex) Exec(timeout time.Duration, prompt string, args ...string) Result {
	c.t.Helper()
	argv := append(append([]string(nil), c.Argv...), "exec", "--skip-git-repo-check", "--json")
	return runCLI(c.t, timeout, c.Dir, c.Env, append(append(argv, args...), prompt))
}

// Interactive starts the interactive CLI with args under tmux and waits until it is ready
// for a prompt. It passes --no-daemon: by default the 0.169.0 TUI copies itself into
// CODEX_HOME/packages and starts a detached app-server daemon that outlives the session
// (and the test); --no-daemon runs the app server inside the TUI process instead.
func (c *Codex) Interactive(args ...string) *Tmux {
	c.t.Helper()
	argv := append(append(append([]string(nil), c.Argv...), "--no-daemon"), args...)
	x := StartTmux(c.t, c.Dir, c.Env, argv...)
	x.WaitScreen(2*time.Minute, "for shortcuts")
	return x
}

// Rollouts returns the rollout files Codex wrote under CODEX_HOME/sessions, sorted.
func (c *Codex) Rollouts() []string {
	c.t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(c.Home, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		c.t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// RolloutLine is one line of a rollout file: {"timestamp","type","payload"}.
type RolloutLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// ReadRollout parses a rollout file, failing the test on a line that is not JSON.
func ReadRollout(t testing.TB, path string) []RolloutLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []RolloutLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var l RolloutLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("agenttest: %s: %v\n%s", path, err, sc.Text())
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// FunctionCall is a response_item of type function_call in a rollout.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
}

// FunctionCalls returns the rollout's function_call response items, in order.
func FunctionCalls(lines []RolloutLine) []FunctionCall {
	var out []FunctionCall
	for _, l := range lines {
		if l.Type != "response_item" {
			continue
		}
		var p struct {
			Type string `json:"type"`
			FunctionCall
		}
		if json.Unmarshal(l.Payload, &p) == nil && p.Type == "function_call" {
			out = append(out, p.FunctionCall)
		}
	}
	return out
}

package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// OpenCodeModel is the model id the harness configures OpenCode with: the built-in
// "anthropic" provider pointed at the ModelServer's Messages API.
const OpenCodeModel = "anthropic/claude-sonnet-4-5"

// OpenCode is OpenCode set up to run against a ModelServer: its config (passed inline through
// OPENCODE_CONFIG_CONTENT) points the anthropic provider's baseURL at the server, and every
// network fetch it would make on its own (models.dev, updates, LSP downloads, default
// plugins, sharing) is switched off.
type OpenCode struct {
	// Argv runs the CLI (see Command).
	Argv []string
	// Home is the throwaway HOME (OpenCode keeps its data under XDG dirs inside it).
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewOpenCode prepares OpenCode against srv; config is merged over the harness's (put
// "permission", "agent", … there). It skips the test when the CLI is not installed.
func NewOpenCode(t testing.TB, srv *ModelServer, config map[string]any) *OpenCode {
	t.Helper()
	argv := Command(t, "opencode")
	root := t.TempDir()
	o := &OpenCode{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(o.Dir)
	if err != nil {
		t.Fatal(err)
	}
	o.Dir = dir
	all := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"model":      OpenCodeModel,
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"anthropic": map[string]any{
			"options": map[string]any{"baseURL": srv.URL + "/v1", "apiKey": ClaudeKey},
			"models":  map[string]any{"claude-sonnet-4-5": map[string]any{"name": "Claude Sonnet 4.5 (agenttest)"}},
		}},
	}
	for k, v := range config {
		all[k] = v
	}
	content, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	o.Env = append(baseEnv(t, o.Home),
		"OPENCODE_CONFIG_CONTENT="+string(content),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"TERM=xterm-256color",
	)
	return o
}

// Run runs `opencode run --format json -m OpenCodeModel ARGS… PROMPT` to completion or
// timeout; stdout is its JSON event lines.
func (o *OpenCode) Run(timeout time.Duration, prompt string, args ...string) Result {
	o.t.Helper()
	argv := append(append([]string(nil), o.Argv...), "run", "--format", "json", "-m", OpenCodeModel)
	return runCLI(o.t, timeout, o.Dir, o.Env, append(append(argv, args...), prompt))
}

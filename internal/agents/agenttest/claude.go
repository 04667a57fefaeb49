package agenttest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ClaudeKey is the API key the harness gives Claude Code; the model server ignores it, but
// the CLI must have pre-approved it or it asks on first start.
const ClaudeKey = "sk-ant-agenttest-0000000000000000"

// Claude is Claude Code set up to run against a ModelServer: a throwaway HOME whose
// .claude.json skips the first-run screens, and a project directory with the test's
// .claude/settings.json (shared/spec/agents.md §11).
type Claude struct {
	// Argv runs the CLI (see Command).
	Argv []string
	// Home is the throwaway HOME; plans land in Home/.claude/plans.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewClaude prepares Claude Code against srv with settings (the project's
// .claude/settings.json, e.g. {"hooks": …}; nil writes none). It skips the test when the CLI
// is not installed (see Command).
func NewClaude(t testing.TB, srv *ModelServer, settings any) *Claude {
	t.Helper()
	argv := Command(t, "claude")
	root := t.TempDir()
	c := &Claude{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The CLI resolves symlinks in its cwd; the trust entry must name the same path.
	dir, err := filepath.EvalSymlinks(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = dir
	writeJSONFile(t, filepath.Join(c.Home, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true,
		"projects": map[string]any{c.Dir: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
		// The CLI records approved keys by their last 20 characters; both forms are listed.
		"customApiKeyResponses": map[string]any{"approved": []string{ClaudeKey, ClaudeKey[len(ClaudeKey)-20:]}, "rejected": []string{}},
	})
	if settings != nil {
		writeJSONFile(t, filepath.Join(c.Dir, ".claude", "settings.json"), settings)
	}
	c.Env = append(baseEnv(t, c.Home),
		"ANTHROPIC_BASE_URL="+srv.URL,
		"ANTHROPIC_API_KEY="+ClaudeKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"TERM=xterm-256color",
	)
	return c
}

// Result is what a finished CLI run printed.
type Result struct {
	Stdout, Stderr string
	Err            error // the exit status, nil on success
}

// Print runs `claude -p PROMPT ARGS…` (print mode) to completion or until timeout, with no
// standard input.
func (c *Claude) Print(timeout time.Duration, prompt string, args ...string) Result {
	c.t.Helper()
	return runCLI(c.t, timeout, c.Dir, c.Env, append(append(c.Argv, "-p", prompt), args...))
}

// Interactive starts the interactive CLI with args (e.g. "--permission-mode", "plan") under
// tmux and waits until it is ready for a prompt.
func (c *Claude) Interactive(args ...string) *Tmux {
	c.t.Helper()
	x := StartTmux(c.t, c.Dir, c.Env, append(append([]string(nil), c.Argv...), args...)...)
	// Ready is the input box's prompt with the footer under it: "? for shortcuts" in the
	// default mode, "… (shift+tab to cycle)" in the others.
	x.WaitScreenFunc(2*time.Minute, func(s string) bool {
		return strings.Contains(s, "❯") && (strings.Contains(s, "for shortcuts") || strings.Contains(s, "shift+tab"))
	})
	return x
}

// runCLI runs argv with exactly env in dir, with no stdin, killing it after timeout.
func runCLI(t testing.TB, timeout time.Duration, dir string, env, argv []string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Children that keep the pipes open must not hold the test past the kill.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Errorf("agenttest: %s did not finish within %v", filepath.Base(argv[0]), timeout)
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

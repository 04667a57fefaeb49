package agenttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// DroidKey is the API key the harness gives Droid's custom model; the model server ignores it.
const DroidKey = "agenttest-droid-key"

// DroidModel is the model id `droid exec -m` takes for the harness's custom model: Droid names
// a settings.json custom model "custom:" + its displayName + "-" + its index.
const DroidModel = "custom:Scripted-0"

// Droid is Factory's Droid set up to run against a ModelServer with no Factory account: a
// throwaway HOME whose ~/.factory/settings.json declares one BYOK custom model (provider
// "anthropic", baseUrl the server), which Droid calls directly at POST /v1/messages, and
// makes it the session default. `droid exec` runs with that alone; the interactive CLI asks
// for a Factory login unless FACTORY_AIRGAP_ENABLED=true, Droid's own switch for machines
// without Factory's servers (it then runs as "airgapped-user", custom models only). The
// project folder is listed as trusted so the trust dialog does not show.
type Droid struct {
	// Argv runs the CLI (see Command).
	Argv []string
	// Home is the throwaway HOME; Droid keeps its sessions in Home/.factory/sessions.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewDroid prepares Droid against srv. settings is merged over the harness's (the custom
// model) and written as ~/.factory/settings.json; put "hooks" there. It skips the test when
// the CLI is not installed.
func NewDroid(t testing.TB, srv *ModelServer, settings map[string]any) *Droid {
	t.Helper()
	argv := Command(t, "droid")
	root := t.TempDir()
	d := &Droid{Argv: argv, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), t: t}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(d.Dir)
	if err != nil {
		t.Fatal(err)
	}
	d.Dir = dir
	all := map[string]any{
		"customModels": []any{map[string]any{
			"model": "claude-sonnet-4-5", "displayName": "Scripted", "baseUrl": srv.URL,
			"apiKey": DroidKey, "provider": "anthropic", "maxOutputTokens": 4096,
		}},
		"sessionDefaultSettings": map[string]any{"model": DroidModel},
		"trustedFolders":         map[string]any{d.Dir: map[string]any{"trustedAt": "2026-01-01T00:00:00.000Z"}},
		"logoAnimation":          "off",
	}
	for k, v := range settings {
		all[k] = v
	}
	writeJSONFile(t, filepath.Join(d.Home, ".factory", "settings.json"), all)
	d.Env = append(baseEnv(t, d.Home), "TERM=xterm-256color", "FACTORY_AIRGAP_ENABLED=true",
		"FACTORY_DROID_AUTO_UPDATE_ENABLED=false")
	return d
}

// Exec runs `droid exec -m DroidModel ARGS… PROMPT` (non-interactive) to completion or
// timeout.
func (d *Droid) Exec(timeout time.Duration, prompt string, args ...string) Result {
	d.t.Helper()
	argv := append(append([]string(nil), d.Argv...), "exec", "-m", DroidModel)
	argv = append(append(argv, args...), prompt)
	return runCLI(d.t, timeout, d.Dir, d.Env, argv)
}

// Interactive starts the interactive CLI with args (e.g. "--use-spec") under tmux and waits
// until it is ready for a prompt. TodoWrite, AskUser and ExitSpecMode run only there: `droid
// exec` leaves them out.
func (d *Droid) Interactive(args ...string) *Tmux {
	d.t.Helper()
	x := StartTmux(d.t, d.Dir, d.Env, append(append([]string(nil), d.Argv...), args...)...)
	// The TUI runs the agent in a child (`droid exec --input-format stream-jsonrpc`) that
	// outlives a hung-up TUI for a while, writing into HOME: the whole process group goes
	// before the temp dir is removed. (Cleanups run last-registered first, so this one runs
	// before StartTmux's.)
	d.t.Cleanup(func() { killGroup(x.pid, 10*time.Second) })
	x.WaitScreen(2*time.Minute, "? for help")
	return x
}

// killGroup kills process group pgid and waits up to timeout until none of its processes is
// left.
func killGroup(pgid int, timeout time.Duration) {
	if pgid <= 0 {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !groupAlive(pgid) {
			return
		}
	}
}

// groupAlive reports whether a live process (not a zombie) of group pgid is left, from /proc;
// without /proc it asks the kernel.
func groupAlive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		// After the command name: state, ppid, pgrp.
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

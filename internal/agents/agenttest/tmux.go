package agenttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tmux is an interactive CLI running in a tmux session of its own: its own server on its own
// socket (tmux -L, under a TMUX_TMPDIR in the test's temp dir), so a test never touches a
// user's tmux and every session dies with the test.
type Tmux struct {
	t      testing.TB
	socket string
	tmpdir string
	pid    int // the pane's process: the CLI (the launcher execs it), leader of its own group
	// Log is a file the pane's output is piped to, for failure messages and debugging.
	Log string
}

// StartTmux runs argv in dir under a new tmux server, with exactly env as its environment, in
// a 200×50 window. The server is killed in t.Cleanup.
func StartTmux(t testing.TB, dir string, env []string, argv ...string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("agenttest: tmux is not installed (apt-get install -y tmux)")
	}
	base := t.TempDir()
	x := &Tmux{t: t, socket: "agenttest", tmpdir: base, Log: filepath.Join(base, "pane.log")}

	// The launcher sets the environment with env -i, so the tmux server's own environment
	// (and its update-environment list) can't add to or override it.
	var b strings.Builder
	b.WriteString("#!/bin/sh\nexec env -i")
	for _, kv := range env {
		b.WriteString(" " + ShellQuote(kv))
	}
	for _, a := range argv {
		b.WriteString(" " + ShellQuote(a))
	}
	b.WriteString("\n")
	launcher := filepath.Join(base, "launch.sh")
	conf := filepath.Join(base, "tmux.conf")
	// remain-on-exit keeps the screen of a CLI that died, for the failure message.
	confText := "set -g remain-on-exit on\nset -g status off\nset -g history-limit 10000\n"
	for _, f := range []struct{ path, text string }{{launcher, b.String()}, {conf, confText}} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		// kill-server hangs up every pane; an already dead server is fine. The CLI may take
		// a moment to exit after the hangup, writing into its HOME as it goes, and t.TempDir's
		// own cleanup fails on a directory that is still being written: wait for it to go.
		_ = x.cmd("kill-server").Run()
		reap(x.pid, 10*time.Second)
	})
	out, err := x.cmd("-f", conf, "new-session", "-d", "-P", "-F", "#{pane_pid}", "-s", "agent",
		"-x", "200", "-y", "50", "-c", dir, launcher).CombinedOutput()
	if err != nil {
		t.Fatalf("agenttest: tmux new-session: %v\n%s", err, out)
	}
	if x.pid, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
		t.Fatalf("agenttest: tmux new-session printed no pane pid: %q", out)
	}
	if out, err := x.cmd("pipe-pane", "-t", "agent", "cat >> "+ShellQuote(x.Log)).CombinedOutput(); err != nil {
		t.Fatalf("agenttest: tmux pipe-pane: %v\n%s", err, out)
	}
	return x
}

func (x *Tmux) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+x.tmpdir, "TMUX=")
	return cmd
}

// Type types text literally into the pane (no Enter).
func (x *Tmux) Type(text string) {
	x.t.Helper()
	if out, err := x.cmd("send-keys", "-t", "agent", "-l", text).CombinedOutput(); err != nil {
		x.t.Fatalf("agenttest: tmux send-keys: %v\n%s", err, out)
	}
}

// Keys sends tmux key names (e.g. "Enter", "Escape", "C-c").
func (x *Tmux) Keys(keys ...string) {
	x.t.Helper()
	args := append([]string{"send-keys", "-t", "agent"}, keys...)
	if out, err := x.cmd(args...).CombinedOutput(); err != nil {
		x.t.Fatalf("agenttest: tmux send-keys: %v\n%s", err, out)
	}
}

// Answer sends keys to a dialog showing text until the dialog is gone, and fails the test when
// it still shows after timeout. A terminal UI can draw a dialog a moment before it listens for
// keys (Ink attaches its input handler after the first render), and a key sent in that moment is
// lost: so the keys go again every few seconds while the dialog stays. Pressing again is
// harmless when the first press was only slow to show: the screen after a dialog is the prompt,
// and Enter on an empty prompt does nothing.
func (x *Tmux) Answer(text string, timeout time.Duration, keys ...string) {
	x.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		x.Keys(keys...)
		screen, err := x.waitScreen(min(5*time.Second, time.Until(deadline)), func(s string) bool { return !strings.Contains(s, text) })
		if err == nil {
			return
		}
		if time.Now().After(deadline) || x.Dead() {
			x.t.Fatalf("agenttest: the dialog showing %q is still there after %v of pressing %q: %v; screen:\n%s", text, timeout, keys, err, screen)
		}
	}
}

// Submit types a prompt into the CLI's input box, waits until the box shows it (keys typed
// into a box that is not drawn yet are lost, and Enter must come after the text), then presses
// Enter.
func (x *Tmux) Submit(prompt string) {
	x.t.Helper()
	x.Type(prompt)
	x.WaitScreen(30*time.Second, prompt[:min(len(prompt), 20)])
	x.Keys("Enter")
}

// SubmitUntil types prompt and presses Enter, again every 10 s (three times at most) until
// started reports the CLI took it: a TUI busy finishing its last turn (its end-of-turn hooks
// still running) can drop an Enter.
func (x *Tmux) SubmitUntil(prompt string, started func() bool) {
	x.t.Helper()
	x.Submit(prompt)
	for range 3 {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if started() {
				return
			}
		}
		x.Keys("Enter")
	}
}

// Screen returns the pane's visible text ("" once the server is gone).
func (x *Tmux) Screen() string {
	out, err := x.cmd("capture-pane", "-p", "-t", "agent").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// Dead reports whether the CLI in the pane has exited.
func (x *Tmux) Dead() bool {
	out, err := x.cmd("display-message", "-p", "-t", "agent", "#{pane_dead}").Output()
	return err != nil || strings.TrimSpace(string(out)) == "1"
}

// WaitScreen polls the screen until it contains every one of texts, and returns it. After
// timeout, or when the CLI has exited, it fails the test showing the last screen.
func (x *Tmux) WaitScreen(timeout time.Duration, texts ...string) string {
	x.t.Helper()
	screen, err := x.waitScreen(timeout, func(s string) bool {
		for _, want := range texts {
			if !strings.Contains(s, want) {
				return false
			}
		}
		return true
	})
	if err != nil {
		x.t.Fatalf("agenttest: waiting for %q: %v; screen:\n%s", texts, err, screen)
	}
	return screen
}

// WaitScreenFunc is WaitScreen with a predicate.
func (x *Tmux) WaitScreenFunc(timeout time.Duration, ok func(screen string) bool) string {
	x.t.Helper()
	screen, err := x.waitScreen(timeout, ok)
	if err != nil {
		x.t.Fatalf("agenttest: waiting for the screen: %v; screen:\n%s", err, screen)
	}
	return screen
}

func (x *Tmux) waitScreen(timeout time.Duration, ok func(string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		screen := x.Screen()
		if ok(screen) {
			return screen, nil
		}
		if x.Dead() {
			return x.Screen(), fmt.Errorf("the CLI exited")
		}
		if time.Now().After(deadline) {
			return screen, fmt.Errorf("timed out after %v", timeout)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// Stop asks the CLI to exit (Ctrl-C twice, as a user would) and waits up to timeout for it;
// the tmux server is killed either way (also by t.Cleanup, so calling Stop is optional).
func (x *Tmux) Stop(timeout time.Duration) {
	x.t.Helper()
	deadline := time.Now().Add(timeout)
	for !x.Dead() && time.Now().Before(deadline) {
		_ = x.cmd("send-keys", "-t", "agent", "C-c").Run()
		time.Sleep(300 * time.Millisecond)
	}
	if !x.Dead() {
		x.t.Logf("agenttest: the CLI did not exit within %v; killing its tmux server", timeout)
	}
	_ = x.cmd("kill-server").Run()
	reap(x.pid, 10*time.Second)
}

// reap waits up to grace for process pid to exit, then kills its process group (tmux made
// the pane's process a session leader, so its hooks and helpers share the group) and waits
// a little more.
func reap(pid int, grace time.Duration) {
	if pid <= 0 {
		return
	}
	if waitGone(pid, grace) {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	waitGone(pid, 5*time.Second)
}

// waitGone polls until pid has exited. The CLI's parent, the tmux server, is gone by then,
// and an init that does not reap leaves a zombie behind: a zombie counts as gone.
func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if !alive(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if _, procErr := os.Stat("/proc/self"); procErr == nil {
			return false // /proc works and has no such process
		}
		return syscall.Kill(pid, 0) == nil // no /proc (macOS): ask the kernel
	}
	// The state follows the parenthesised command name, which may itself contain spaces.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

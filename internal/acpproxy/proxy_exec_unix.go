//go:build unix

package acpproxy

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup keeps terminal signals (Ctrl-C) from reaching the agent directly: the proxy
// forwards them, so the agent gets each signal once, not twice.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

func (a *Agent) terminate() error { return a.Cmd.Process.Signal(syscall.SIGTERM) }

func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

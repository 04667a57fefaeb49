//go:build !unix

package acpproxy

import (
	"os"
	"os/exec"
)

func ownProcessGroup(*exec.Cmd, int) {}

// startGuard: without process groups, the agent's children are not followed.
func startGuard() (int, func()) { return 0, nil }

func killGroup(int) {}

func (a *Agent) terminate() error { return a.Cmd.Process.Kill() }

func exitStatus(ps *os.ProcessState) int {
	if ps == nil || ps.ExitCode() < 0 {
		return 1
	}
	return ps.ExitCode()
}

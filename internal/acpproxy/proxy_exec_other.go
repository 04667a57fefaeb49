//go:build !unix

package acpproxy

import (
	"os"
	"os/exec"
)

func ownProcessGroup(*exec.Cmd) {}

func (a *Agent) terminate() error { return a.Cmd.Process.Kill() }

func exitStatus(ps *os.ProcessState) int {
	if ps == nil || ps.ExitCode() < 0 {
		return 1
	}
	return ps.ExitCode()
}

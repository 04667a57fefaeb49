//go:build !unix

package acpproxy

import (
	"os"
	"os/exec"
)

func ownProcessGroup(*exec.Cmd) {}

// guardGroup: without process groups, the agent's children are not followed.
func guardGroup(int) func() { return func() {} }

func (a *Agent) terminate() error { return a.Cmd.Process.Kill() }

func exitStatus(ps *os.ProcessState) int {
	if ps == nil || ps.ExitCode() < 0 {
		return 1
	}
	return ps.ExitCode()
}

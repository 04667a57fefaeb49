//go:build unix

package acpproxy

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup keeps terminal signals (Ctrl-C) from reaching the agent directly: the proxy
// forwards them, so the agent gets each signal once, not twice. The agent is told at once when
// the proxy dies, where the system can (parentDeathSignal).
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	parentDeathSignal(cmd.SysProcAttr)
}

// guardScript waits for its input to end (the proxy closed it, or died, and the kernel closed
// it), then ends its own process group, the agent's: SIGTERM first, SIGKILL a second later for
// what did not stop. It ignores SIGTERM itself so as to live to send the SIGKILL.
const guardScript = `trap '' TERM INT HUP; read _; kill -TERM 0; sleep 1; kill -KILL 0`

// guardGroup starts a guard in the agent's process group (pgid) and returns the function that
// sets it off. A process of its own, rather than the proxy, because only another process can
// act after the proxy is killed with SIGKILL; in the group, because the group then lives as
// long as the guard, so its id cannot be reused by an unrelated group before the guard acts. A
// guard that cannot start (no /bin/sh, the group already gone) leaves the ending to the proxy
// alone: the returned function then signals the group itself.
func guardGroup(pgid int) (end func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return func() { killGroup(pgid) }
	}
	cmd := exec.Command("/bin/sh", "-c", guardScript)
	cmd.Stdin = r
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return func() { killGroup(pgid) }
	}
	go cmd.Wait() // reap it; it outlives the proxy only when the proxy exits first
	return func() { w.Close() }
}

// killGroup is guardGroup's fallback: SIGTERM to what is left of the agent's group.
func killGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGTERM) }

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

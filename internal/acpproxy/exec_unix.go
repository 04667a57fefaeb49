//go:build unix

package acpproxy

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup keeps terminal signals (Ctrl-C) from reaching the agent directly: the proxy
// forwards them, so the agent gets each signal once, not twice. The agent joins group pgid (the
// guard's), or leads a group of its own when pgid is 0. It is told at once when the proxy dies,
// where the system can (parentDeathSignal).
func ownProcessGroup(cmd *exec.Cmd, pgid int) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, pgid
	parentDeathSignal(cmd.SysProcAttr)
}

// guardScript waits for its input to end (the proxy closed it, or died, and the kernel closed
// it), then ends its own process group, the agent's: SIGTERM first, SIGKILL a second later for
// what did not stop. It ignores SIGTERM itself so as to live to send the SIGKILL.
const guardScript = `trap '' TERM INT HUP; read _; kill -TERM 0; sleep 1; kill -KILL 0`

// startGuard starts the guard of the agent's process group, leading a new group the agent then
// joins, and returns the group's id and the function that sets the guard off. A process of its
// own, rather than the proxy, because only another process can act after the proxy is killed
// with SIGKILL; started before the agent, so that no moment exists when the agent (and whatever
// it starts) runs unguarded; leading the group, so the group's id cannot be reused by an
// unrelated group before the guard acts. A guard that cannot start (no /bin/sh) returns 0: the
// agent then leads its own group and the proxy alone ends it (killGroup).
func startGuard() (pgid int, end func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, nil
	}
	cmd := exec.Command("/bin/sh", "-c", guardScript)
	cmd.Stdin = r
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return 0, nil
	}
	go cmd.Wait() // reap it; it outlives the proxy only when the proxy exits first
	return cmd.Process.Pid, func() { w.Close() }
}

// killGroup is the fallback without a guard: SIGTERM to what is left of the agent's group.
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

package acpproxy

import "syscall"

// parentDeathSignal has the kernel send the agent SIGTERM when the proxy dies, however it dies
// (SIGKILL included): the IDE that killed the proxy meant to stop its agent.
func parentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGTERM }

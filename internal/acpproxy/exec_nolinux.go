//go:build unix && !linux

package acpproxy

import "syscall"

// parentDeathSignal: only Linux has a parent-death signal; elsewhere the group guard alone ends
// the agent when the proxy dies.
func parentDeathSignal(*syscall.SysProcAttr) {}

//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildPlandash builds this command into a temporary directory: the tree test must kill a real
// plandash process, not the test binary.
func buildPlandash(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plandash")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// alive reports whether pid runs: present in /proc and not a zombie waiting for a reaper (a
// container's PID 1 may never reap).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestAcpEndsTheAgentsTree: an agent that started a child of its own ends with it, however the
// IDE ends plandash: SIGKILL, SIGTERM, or closing its input (the agent exits on EOF and leaves
// its child behind).
func TestAcpEndsTheAgentsTree(t *testing.T) {
	bin := buildPlandash(t)
	for _, how := range []string{"SIGKILL", "SIGTERM", "stdin closed"} {
		t.Run(how, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			// The agent starts a grandchild, notes both pids, and waits for its input to end.
			agent := `sleep 1000 & echo $$ $! > "$1.tmp"; mv "$1.tmp" "$1"; read _`
			cmd := exec.Command(bin, "acp", "--server", "http://127.0.0.1:1", "--token", "t", "--data", t.TempDir(),
				"--flush", "10ms", "--", "sh", "-c", agent, "sh", pidFile)
			cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				cmd.Process.Kill()
				stdin.Close()
				<-exited
			})

			var pids []int
			deadline := time.Now().Add(30 * time.Second)
			for len(pids) < 2 {
				if time.Now().After(deadline) {
					t.Fatal("the agent did not start its child")
				}
				time.Sleep(10 * time.Millisecond)
				b, err := os.ReadFile(pidFile)
				if err != nil {
					continue
				}
				for _, f := range strings.Fields(string(b)) {
					pid, err := strconv.Atoi(f)
					if err != nil {
						t.Fatalf("pid file %q", b)
					}
					pids = append(pids, pid)
				}
			}
			t.Cleanup(func() {
				for _, pid := range pids {
					if alive(pid) {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})

			switch how {
			case "SIGKILL":
				cmd.Process.Signal(syscall.SIGKILL)
			case "SIGTERM":
				cmd.Process.Signal(syscall.SIGTERM)
			default:
				stdin.Close()
			}
			select {
			case <-exited:
				exited <- nil // for the cleanup
			case <-time.After(30 * time.Second):
				t.Fatal("plandash did not end")
			}
			for _, pid := range pids {
				for alive(pid) {
					if time.Now().After(deadline.Add(30 * time.Second)) {
						t.Fatalf("process %d (of agent %d and its child %d) outlived plandash", pid, pids[0], pids[1])
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
}

//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
)

// pollableStdin returns the IDE's end of the connection as a file the Go runtime waits on with
// its poller, when it is a pipe or a socket. A pipe handed to a process is usually in blocking
// mode, and Go then reads it with a blocking system call: the forwarding goroutine holds a
// processor while it waits for the IDE, the runtime's monitor takes it back after each frame,
// and keeps waking every few tens of microseconds to do so; at a few hundred frames a second
// that is tens of thread switches a frame. Non-blocking, a frame from the IDE wakes the
// goroutine through the poller like the agent's output does. Terminals and files are left as
// they are: a terminal's mode is shared with the shell that outlives this process.
func pollableStdin(stdin io.Reader) io.Reader {
	f, ok := stdin.(*os.File)
	if !ok {
		return stdin
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return stdin
	}
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return stdin
	}
	// os.NewFile sees the descriptor is non-blocking and registers it with the poller.
	return os.NewFile(uintptr(fd), f.Name())
}

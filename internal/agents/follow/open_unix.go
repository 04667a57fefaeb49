//go:build unix

package follow

import (
	"os"
	"syscall"
)

// openFlags opens a rollout without following a symlink in its last step and without waiting
// for a writer when it turns out to be a FIFO; the type is then checked on the descriptor.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

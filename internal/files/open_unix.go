//go:build unix

package files

import (
	"os"
	"syscall"
)

// openReadFlags adds O_NONBLOCK so opening a FIFO that has no writer returns at once instead of
// hanging; regular files ignore the flag.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

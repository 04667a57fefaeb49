//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sharedplans

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes BSD flock(LOCK_EX|LOCK_NB), the primitive docker-agent uses. It must be flock,
// not fcntl: on Linux the two kinds of lock do not see each other.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EAGAIN):
			return false, nil
		default:
			return false, err
		}
	}
}

func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

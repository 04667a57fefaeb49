//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package sharedplans

import "os"

// tryLock is a no-op where docker-agent's lock is one too (js/wasm, wasip1, plan9, ...); the
// in-process semaphore still serializes this process's writers.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }

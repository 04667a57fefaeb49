package sharedplans

import (
	"context"
	"fmt"
	"os"
	"time"
)

// A busy flock is polled (flock cannot wait on a context). docker-agent polls every 10 ms; we
// start at 1 ms and back off to that, so a short hold by another process costs us little.
const (
	lockRetryMin = time.Millisecond
	lockRetryMax = 10 * time.Millisecond
)

// lockSettle is how long a writer that waited for the lock holds it before writing, so that a
// cancellation sent while it waited is seen first (see lock).
const lockSettle = 50 * time.Millisecond

// lock takes this process's semaphore, then docker-agent's flock on .plans.lock, creating the
// directory (0700) and the sentinel (0600) as docker-agent does. The returned func releases
// both; the sentinel is never deleted because another process may be waiting on it.
func (s *Store) lock(ctx context.Context) (unlock func(), err error) {
	waited := false
	select {
	case s.sem <- struct{}{}:
	default:
		waited = true
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	release := func() { <-s.sem }
	if err := ctx.Err(); err != nil {
		release()
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		release()
		return nil, fmt.Errorf("creating plans directory: %w", err)
	}
	f, err := openLockFile(s.dir)
	if err != nil {
		release()
		return nil, fmt.Errorf("opening plans lock file %q: %w", s.lockPath, err)
	}
	var t *time.Timer
	wait := lockRetryMin
	for {
		ok, err := tryLock(f)
		if err != nil {
			_ = f.Close()
			release()
			return nil, fmt.Errorf("locking plans lock file %q: %w", s.lockPath, err)
		}
		if ok {
			break
		}
		waited = true
		if t == nil {
			t = time.NewTimer(wait)
			defer t.Stop()
		} else {
			t.Reset(wait)
		}
		wait = min(2*wait, lockRetryMax)
		select {
		case <-t.C:
		case <-ctx.Done():
			_ = f.Close()
			release()
			return nil, ctx.Err()
		}
	}
	unlock = func() {
		_ = unlockFile(f)
		_ = f.Close()
		release()
	}
	if waited {
		// A writer that had to wait was most likely queued behind another process's write, and
		// its caller may have given up meanwhile: an MCP client's notifications/cancelled travels
		// behind the request and is applied asynchronously, so it can arrive just after the
		// lock is released. Writers released at that moment would otherwise win the race and
		// write what their callers were told was cancelled. docker-agent's 10 ms polling gives
		// cancellations the same window; an uncontended write does not pay it.
		t := time.NewTimer(s.settle)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	if s.locked != nil {
		s.locked()
	}
	// A wait can end with the lock granted and the context cancelled at once (the timer and
	// Done both ready, or a cancel between the last poll and the grant). The caller gave up,
	// so it must not write: a cancelled write that lands later would overwrite whatever the
	// caller did next.
	if err := ctx.Err(); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// openLockFile opens (creating) the sentinel inside the plans directory, so a .plans.lock that
// is a symlink out of it is refused rather than followed: O_CREATE through a dangling link would
// create a file wherever it points.
func openLockFile(dir string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.OpenFile(LockFileName, os.O_RDWR|os.O_CREATE, 0o600)
}

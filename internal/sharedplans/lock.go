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

// lockSettle is how long a writer that waited for the lock gives a cancellation sent while it
// waited to arrive before it writes (see lock).
const lockSettle = 100 * time.Millisecond

// lock takes this process's semaphore, then docker-agent's flock on .plans.lock, creating the
// directory (0700) and the sentinel (0600) as docker-agent does. The returned func releases
// both; the sentinel is never deleted because another process may be waiting on it.
//
// A writer that had to wait was most likely queued behind another write, and its caller may
// have given up meanwhile: an MCP client's notifications/cancelled travels behind the request
// and is applied asynchronously, so it can arrive just after the lock is released. A writer
// released at that moment would win the race and write what its caller was told was cancelled
// (issue 25). So a writer that waited lets go of both locks, gives cancellations s.settle to
// arrive, and takes them again, this time writing at once. Only a writer that waited at least
// that long settles, and never while holding the lock, so bursts of writers keep their pace;
// docker-agent's 10 ms polling gives cancellations a similar window, and an uncontended write
// pays nothing.
func (s *Store) lock(ctx context.Context) (unlock func(), err error) {
	start := time.Now()
	unlock, waited, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	// Only a wait long enough for a caller to give up on is worth the window: writers that
	// queue for a few milliseconds behind each other in a burst go straight on.
	if waited && time.Since(start) >= s.settle {
		unlock()
		t := time.NewTimer(s.settle)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		if unlock, _, err = s.acquire(ctx); err != nil {
			return nil, err
		}
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

// acquire takes the semaphore and the flock, and says whether either was busy.
func (s *Store) acquire(ctx context.Context) (unlock func(), waited bool, err error) {
	select {
	case s.sem <- struct{}{}:
	default:
		waited = true
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	release := func() { <-s.sem }
	if err := ctx.Err(); err != nil {
		release()
		return nil, false, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		release()
		return nil, false, fmt.Errorf("creating plans directory: %w", err)
	}
	f, err := openLockFile(s.dir)
	if err != nil {
		release()
		return nil, false, fmt.Errorf("opening plans lock file %q: %w", s.lockPath, err)
	}
	var t *time.Timer
	wait := lockRetryMin
	for {
		ok, err := tryLock(f)
		if err != nil {
			_ = f.Close()
			release()
			return nil, false, fmt.Errorf("locking plans lock file %q: %w", s.lockPath, err)
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
			return nil, false, ctx.Err()
		}
	}
	return func() {
		_ = unlockFile(f)
		_ = f.Close()
		release()
	}, waited, nil
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

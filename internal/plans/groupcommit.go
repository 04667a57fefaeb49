package plans

import (
	"context"
	"slices"
	"time"
)

// call is one Apply waiting in the commit queue. The leader that takes it fills res and err and
// then closes done; nobody touches it after that.
type call struct {
	st     *Stream
	items  []Item
	source string    // who posted it (SourceOf the caller's context)
	at     time.Time // when its changes happened (TimeOf the caller's context)
	res    Result
	err    error
	done   chan struct{}
}

// enqueue is group commit. Each call joins the queue and then either learns its outcome or
// becomes the leader by taking the one lead token: the leader takes everything queued, applies
// it in queue order to one batch, commits that once (one transaction, one fsync) and wakes every
// call it took. Calls that arrive while a leader commits queue up behind it and go out together
// in the next commit, so the cost of an fsync is shared by as many posters as are waiting for it,
// and nobody waits for more than the commit in flight plus their own.
func (s *Service) enqueue(ctx context.Context, st *Stream, items []Item) (Result, error) {
	c := &call{st: st, items: items, source: SourceOf(ctx), at: TimeOf(ctx), done: make(chan struct{})}
	s.qmu.Lock()
	s.queue = append(s.queue, c)
	s.qmu.Unlock()
	select {
	case <-c.done:
	case s.lead <- struct{}{}:
		// A previous leader may have taken c already; then c is done and the queue holds only
		// later calls, which this leader commits too rather than leaving them waiting.
		s.commitQueued(ctx)
		<-s.lead
		<-c.done
	case <-ctx.Done():
		if s.dequeue(c) {
			return Result{}, ctx.Err()
		}
		// A leader has it: its outcome is a commit away and must be reported as it is.
		<-c.done
	}
	return c.res, c.err
}

// dequeue removes c from the queue if no leader has taken it yet.
func (s *Service) dequeue(c *call) bool {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	i := slices.Index(s.queue, c)
	if i < 0 {
		return false
	}
	s.queue = slices.Delete(s.queue, i, i+1)
	return true
}

// commitQueued is the leader's work: apply every queued call to one batch and commit it.
func (s *Service) commitQueued(ctx context.Context) {
	s.qmu.Lock()
	group := s.queue
	s.queue = nil
	s.qmu.Unlock()
	if len(group) == 0 {
		return
	}
	// The commit is every waiter's, so one poster going away must not cancel it.
	ctx = context.WithoutCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := Begin(ctx, s.store)
	if err == nil {
		b := &batch{svc: s, ctx: ctx, tx: tx, now: s.cfg.Now()}
		for _, c := range group {
			b.st, b.source, b.at, b.callSessions, b.callSeen = c.st, c.source, c.at, nil, nil
			if c.res, err = b.applyItems(c.items); err != nil {
				break
			}
			c.res.Sessions = b.callSessions
		}
		if err == nil {
			err = s.commit(ctx, b.changes(), tx.Commit)
		}
		tx.Rollback() // after a commit, nothing to do
	}
	for _, c := range group {
		if err != nil {
			c.res, c.err = Result{}, err
		}
		close(c.done)
	}
}

package web

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// Bounds of the capture queue: events read and acknowledged but not yet recorded. Past either,
// a hook is answered 503 with Retry-After and tries again (issue 25, item 15: 160 queued posts of
// 15.7 MB took the server past 6 GB).
const (
	maxCaptureQueue = 4096
	// captureBudgetBodies sizes the queue's byte budget in request bodies (--max-body): big
	// enough for bursts of ordinary events, small enough that the queue's memory is bounded by
	// the operator's own limit.
	captureBudgetBodies = 8
	// captureTimeout bounds the recording of one event, so a store that hangs delays the
	// events behind it by at most this much, and the queue keeps draining.
	captureTimeout = 30 * time.Second
)

// capture is an event read and acknowledged, to be recorded.
type capture struct {
	agent  string
	h      AgentHooks
	body   []byte
	source string // plans.SourceOf the request that brought it
}

// captureQueue holds acknowledged events in arrival order, bounded in count and in bytes.
type captureQueue struct {
	ch     chan capture
	budget int64        // bytes of bodies queued or being recorded, at most
	bytes  atomic.Int64 // bytes of bodies queued or being recorded now
}

func newCaptureQueue(maxBody int64) *captureQueue {
	return &captureQueue{ch: make(chan capture, maxCaptureQueue), budget: captureBudgetBodies * maxBody}
}

// offer queues c, or reports false when the queue is full by count or by bytes.
func (q *captureQueue) offer(c capture) bool {
	n := int64(len(c.body))
	if q.bytes.Add(n) > q.budget {
		q.bytes.Add(-n)
		return false
	}
	select {
	case q.ch <- c:
		return true
	default:
		q.bytes.Add(-n)
		return false
	}
}

// maxStuckCaptures bounds the recordings given up on (still running past captureTimeout, their
// Handle ignoring its context): the recorder moves on from up to this many, then waits.
const maxStuckCaptures = 4

// recordCaptures records acknowledged events in arrival order until ctx ends, then the ones
// still queued. An event's bytes leave the budget once its recording returns, not when it is
// taken from the queue, so the budget bounds all the memory acknowledged events hold. A
// recording that outlives captureTimeout is left to finish on its own and the next event is
// recorded: one event never holds the queue (or shutdown) for good.
func (s *Server) recordCaptures(ctx context.Context) {
	stuck := make(chan struct{}, maxStuckCaptures)
	record := func(c capture) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer s.captures.bytes.Add(-int64(len(c.body)))
			rctx, cancel := context.WithTimeout(plans.WithSource(context.WithoutCancel(ctx), c.source), captureTimeout)
			defer cancel()
			if _, err := c.h.Handle(rctx, c.body); err != nil {
				s.log.Warn("agent hook: an acknowledged event could not be recorded", "agent", c.agent, "err", err)
			}
		}()
		timer := time.NewTimer(captureTimeout + time.Second) // Handle had its own deadline first
		defer timer.Stop()
		select {
		case <-done:
			return
		case <-timer.C:
		}
		select {
		case stuck <- struct{}{}:
			s.log.Error("agent hook: recording an event does not end; going on with the next", "agent", c.agent, "after", captureTimeout)
			go func() { <-done; <-stuck }()
		default:
			<-done // too many already left running: wait rather than pile up more
		}
	}
	for {
		select {
		case c := <-s.captures.ch:
			record(c)
		case <-ctx.Done():
			for {
				select {
				case c := <-s.captures.ch:
					record(c)
				default:
					return
				}
			}
		}
	}
}

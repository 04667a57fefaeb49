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

// recordCaptures records acknowledged events in arrival order until ctx ends, then the ones
// still queued. An event's bytes leave the budget once it is recorded, not when it is taken
// from the queue, so the budget bounds all the memory acknowledged events hold.
func (s *Server) recordCaptures(ctx context.Context) {
	record := func(c capture) {
		defer s.captures.bytes.Add(-int64(len(c.body)))
		rctx, cancel := context.WithTimeout(plans.WithSource(context.WithoutCancel(ctx), c.source), captureTimeout)
		defer cancel()
		if _, err := c.h.Handle(rctx, c.body); err != nil {
			s.log.Warn("agent hook: an acknowledged event could not be recorded", "agent", c.agent, "err", err)
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

// Package capture holds agents' hook events that were read and acknowledged but not yet
// recorded: bounded in count and in bytes, recorded in arrival order, one event never holding
// the queue for good. The hook route (internal/web) offers events; Run records them.
package capture

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// Handler records one agent's hook event.
type Handler interface {
	Handle(ctx context.Context, body []byte) ([]byte, error)
}

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

// Event is an event read and acknowledged, to be recorded.
type Event struct {
	Agent   string
	Handler Handler
	Body    []byte
	Source  string // plans.SourceOf the request that brought it
}

// Queue holds acknowledged events in arrival order, bounded in count and in bytes.
type Queue struct {
	ch     chan Event
	budget int64        // bytes of bodies queued or being recorded, at most
	bytes  atomic.Int64 // bytes of bodies queued or being recorded now
	log    *slog.Logger
	// Running says Run is recording: events are offered only then.
	Running atomic.Bool
}

// New returns a queue whose byte budget is captureBudgetBodies request bodies of maxBody.
func New(maxBody int64, log *slog.Logger) *Queue {
	if log == nil {
		log = slog.Default()
	}
	return &Queue{ch: make(chan Event, maxCaptureQueue), budget: captureBudgetBodies * maxBody, log: log}
}

// Budget is the most bytes of bodies the queue holds.
func (q *Queue) Budget() int64 { return q.budget }

// Offer queues c, or reports false when the queue is full by count or by bytes.
func (q *Queue) Offer(c Event) bool {
	n := int64(len(c.Body))
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

// Run records acknowledged events in arrival order until ctx ends, then the ones
// still queued. An event's bytes leave the budget once its recording returns, not when it is
// taken from the queue, so the budget bounds all the memory acknowledged events hold. A
// recording that outlives captureTimeout is left to finish on its own and the next event is
// recorded: one event never holds the queue (or shutdown) for good.
func (q *Queue) Run(ctx context.Context) {
	q.Running.Store(true)
	defer q.Running.Store(false)
	stuck := make(chan struct{}, maxStuckCaptures)
	record := func(c Event) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer q.bytes.Add(-int64(len(c.Body)))
			rctx, cancel := context.WithTimeout(plans.WithSource(context.WithoutCancel(ctx), c.Source), captureTimeout)
			defer cancel()
			if _, err := c.Handler.Handle(rctx, c.Body); err != nil {
				q.log.Warn("agent hook: an acknowledged event could not be recorded", "agent", c.Agent, "err", err)
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
			q.log.Error("agent hook: recording an event does not end; going on with the next", "agent", c.Agent, "after", captureTimeout)
			go func() { <-done; <-stuck }()
		default:
			<-done // too many already left running: wait rather than pile up more
		}
	}
	for {
		select {
		case c := <-q.ch:
			record(c)
		case <-ctx.Done():
			for {
				select {
				case c := <-q.ch:
					record(c)
				default:
					return
				}
			}
		}
	}
}

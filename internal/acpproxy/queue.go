package acpproxy

import (
	"slices"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// frame is one tapped line on its way to the dashboard. It is kept small and nearly free of
// pointers: the queue holds thousands, and the forwarding path appends one per line.
type frame struct {
	seq    uint64
	at     int64  // Unix nanoseconds
	line   []byte // without its terminator
	key    string // session and plan id of a plan frame; "" for any other frame
	a2c    bool   // sent by the agent
	cursor bool   // a request or notification of Cursor's own: not posted (see Sink.encode)
	valid  bool   // the line is a JSON object or array (see validMsg)
	pinned bool   // a connection's opening frames: never dropped
	// skipped counts the older states of this plan that this frame replaced in the queue: the
	// dashboard is told, so a gap in a plan's history is explained.
	skipped uint32
}

func newFrame(dir acp.Direction, at time.Time, line []byte) frame {
	a2c := dir == acp.AgentToClient
	f := frame{at: at.UnixNano(), line: line, a2c: a2c, cursor: cursorMethod(frameMethod(line)), valid: validMsg(line)}
	if a2c { // only the agent sends plans
		f.key = planKey(line)
	}
	return f
}

func (f *frame) dir() acp.Direction {
	if f.a2c {
		return acp.AgentToClient
	}
	return acp.ClientToAgent
}

func (f *frame) time() time.Time { return time.Unix(0, f.at) }

// QueueStats counts what the tap's queue did with frames.
type QueueStats struct {
	Queued    int    // frames waiting now
	Dropped   uint64 // frames dropped because the queue was full
	Coalesced uint64 // plan frames replaced by a newer state of the same plan
	Oversize  uint64 // lines too long to send to the dashboard
	Lost      uint64 // times forwarded bytes were not tapped because the tap was far behind
}

// frameQueue is bounded, and built for a dashboard that may be away for a long time: plans are
// replaced whole on every update, so while the dashboard is behind (a post failed, or has been
// out longer than slow) of each (session, plan) only the newest frame is kept, and when the
// queue is full the oldest other frames go first. The dashboard therefore always catches up
// with the latest state of every plan, whatever it missed in between. While it keeps up, every
// state is kept, so a plan's history has every revision.
//
// While a sink is taking batches from a dashboard that keeps up, a full queue makes push wait
// for room instead of dropping: push runs on the tap's goroutine, off the forwarding path, so
// the wait holds back only the tap (whose own backlog is bounded), never a peer.
//
// One batch at a time is taken out for posting; it is either done or put back in front.
type frameQueue struct {
	mu       sync.Mutex
	seq      uint64
	pinned   fifo
	others   fifo
	plans    []frame // oldest first; one per key
	bytes    int
	inflight bool
	since    time.Time // when the batch out was taken
	down     bool      // the last post failed; cleared by done
	closed   bool
	stats    QueueStats
	notify   chan struct{}
	ended    chan struct{} // closed by close: wakes a poster that is waiting out a backoff
	sinks    int           // sinks taking batches (attach, detach)
	waits    int           // times a push waited for room
	moved    chan struct{} // closed (and replaced) when frames leave or the dashboard's state changes

	maxFrames, maxBytes, maxPlans, maxPinned int

	now  func() time.Time
	slow time.Duration // a post out longer than this means the dashboard is behind
}

func newFrameQueue(maxFrames, maxBytes int) *frameQueue {
	return &frameQueue{
		maxFrames: maxFrames, maxBytes: maxBytes, maxPlans: 4096, maxPinned: 32,
		notify: make(chan struct{}, 1), ended: make(chan struct{}), moved: make(chan struct{}),
		now: time.Now, slow: 2 * time.Second,
	}
}

// behind reports whether the dashboard is not keeping up, so plan states may be coalesced: the
// last post failed, the queue is full, or the post out is taking longer than a healthy one does.
func (q *frameQueue) behind() bool {
	full := q.count() >= q.maxFrames || q.bytes >= q.maxBytes || len(q.plans) >= q.maxPlans
	return q.down || full || q.inflight && q.now().Sub(q.since) > q.slow
}

// push queues frames (in order) and wakes the poster. It waits for room while the dashboard
// keeps up (see waitRoom); otherwise it never blocks, and the bounds drop what they must.
func (q *frameQueue) push(fs []frame) {
	q.mu.Lock()
	q.waitRoom(fs)
	for _, f := range fs {
		q.seq++
		f.seq = q.seq
		q.bytes += len(f.line)
		switch {
		case f.key != "":
			q.addPlan(f)
		case q.seq <= uint64(q.maxPinned):
			f.pinned = true
			q.pinned.push(f)
		default:
			q.others.push(f)
		}
	}
	q.trim()
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// waitRoom waits, with q.mu held, until fs fits within the bounds or nothing is queued, for as
// long as a sink is posting and the dashboard keeps up: nothing failed, and the post out has not
// been out longer than slow. A dashboard that falls behind releases the wait, and the queue
// coalesces and drops as it always did.
func (q *frameQueue) waitRoom(fs []frame) {
	size := 0
	for _, f := range fs {
		size += len(f.line)
	}
	for q.sinks > 0 && !q.closed && !q.down {
		n := q.count()
		if n == 0 || n+len(fs) <= q.maxFrames && q.bytes+size <= q.maxBytes {
			return
		}
		wait := q.slow
		if q.inflight {
			if wait -= q.now().Sub(q.since); wait <= 0 {
				return // the post out is slow: the dashboard is behind
			}
		}
		moved := q.moved
		q.waits++
		q.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-moved:
		case <-t.C:
		}
		t.Stop()
		q.mu.Lock()
	}
}

// wake tells a push waiting for room to look again; q.mu is held.
func (q *frameQueue) wake() {
	close(q.moved)
	q.moved = make(chan struct{})
}

// attach and detach count the sinks posting from the queue: only while one is does a full
// queue make the tap wait.
func (q *frameQueue) attach() {
	q.mu.Lock()
	q.sinks++
	q.mu.Unlock()
}

func (q *frameQueue) detach() {
	q.mu.Lock()
	q.sinks--
	q.wake()
	q.mu.Unlock()
}

// addPlan queues a plan frame; while the dashboard is behind it replaces the queued states of
// the same plan. A frame already taken out for posting is not in q.plans, so it still goes out;
// the newer one follows it.
func (q *frameQueue) addPlan(f frame) {
	if q.behind() {
		q.plans = q.dropStates(q.plans, &f)
	}
	q.plans = append(q.plans, f)
}

// dropStates removes from plans the states of f's plan, counting them in f.skipped.
func (q *frameQueue) dropStates(plans []frame, f *frame) []frame {
	out := plans[:0]
	for _, p := range plans {
		if p.key != f.key {
			out = append(out, p)
			continue
		}
		q.bytes -= len(p.line)
		f.skipped += p.skipped + 1
		q.stats.Coalesced++
	}
	clear(plans[len(out):])
	return out
}

// coalesceAll keeps only the newest queued state of each plan, folding the older ones into it.
func (q *frameQueue) coalesceAll() {
	newest := make(map[string]int, len(q.plans)) // key → index in kept
	kept := make([]frame, 0, len(q.plans))
	for i := len(q.plans) - 1; i >= 0; i-- {
		f := q.plans[i]
		if j, ok := newest[f.key]; ok {
			kept[j].skipped += f.skipped + 1
			q.bytes -= len(f.line)
			q.stats.Coalesced++
			continue
		}
		newest[f.key] = len(kept)
		kept = append(kept, f)
	}
	slices.Reverse(kept)
	q.plans = kept
}

// trim drops the oldest non-plan frames while the queue is over its bounds. Plan frames are
// bounded only by the number of distinct plans.
func (q *frameQueue) trim() {
	for q.others.len() > 0 && (q.bytes > q.maxBytes || q.count() > q.maxFrames) {
		f := q.others.pop()
		q.bytes -= len(f.line)
		q.stats.Dropped++
	}
	for len(q.plans) > q.maxPlans {
		q.bytes -= len(q.plans[0].line)
		q.plans = q.plans[1:]
		q.stats.Dropped++
	}
}

// take removes up to maxFrames frames (at least one, if any wait) holding up to about maxBytes,
// oldest first, for posting. It returns nil while a batch is out.
func (q *frameQueue) take(maxFrames, maxBytes int) []frame {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.inflight {
		return nil
	}
	var out []frame
	size := 0
	for len(out) < maxFrames {
		f, ok := q.popOldest(maxBytes-size, len(out) == 0)
		if !ok {
			break
		}
		size += len(f.line)
		out = append(out, f)
	}
	q.inflight = len(out) > 0
	q.since = q.now()
	if len(out) > 0 {
		q.wake()
	}
	return out
}

// popOldest removes the frame with the lowest seq among the three lists, if it fits in room.
func (q *frameQueue) popOldest(room int, first bool) (frame, bool) {
	var best *frame
	src := -1
	if f := q.pinned.front(); f != nil {
		best, src = f, 0
	}
	if f := q.others.front(); f != nil && (best == nil || f.seq < best.seq) {
		best, src = f, 1
	}
	if len(q.plans) > 0 && (best == nil || q.plans[0].seq < best.seq) {
		best, src = &q.plans[0], 2
	}
	if best == nil || !first && len(best.line) > room {
		return frame{}, false
	}
	var f frame
	switch src {
	case 0:
		f = q.pinned.pop()
	case 1:
		f = q.others.pop()
	default:
		f = q.plans[0]
		q.plans = q.plans[1:]
	}
	q.bytes -= len(f.line)
	return f, true
}

// done ends the batch taken out: it was delivered (or refused for good).
func (q *frameQueue) done() {
	q.mu.Lock()
	q.inflight, q.down = false, false
	q.mu.Unlock()
}

// requeue puts a batch that could not be delivered back in front; the dashboard is behind, so
// of each plan only the newest state is kept.
func (q *frameQueue) requeue(batch []frame) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.inflight, q.down = false, true
	q.wake()
	var pinned, others, plans []frame
	for _, f := range batch {
		switch {
		case f.key != "":
			plans = append(plans, f)
		case f.pinned:
			pinned = append(pinned, f)
		default:
			others = append(others, f)
		}
		q.bytes += len(f.line)
	}
	q.pinned.pushFront(pinned)
	q.others.pushFront(others)
	q.plans = append(plans, q.plans...)
	q.coalesceAll()
	q.trim()
}

// count is how many frames wait; q.mu is held.
func (q *frameQueue) count() int { return q.pinned.len() + q.others.len() + len(q.plans) }

// holds reports whether a whole batch of maxFrames frames or maxBytes bytes is waiting.
func (q *frameQueue) holds(maxFrames, maxBytes int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.count() >= maxFrames || q.bytes >= maxBytes
}

// empty reports whether nothing waits and nothing is out.
func (q *frameQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return !q.inflight && q.count() == 0
}

func (q *frameQueue) close() {
	q.mu.Lock()
	if !q.closed {
		close(q.ended)
	}
	q.closed = true
	q.wake()
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *frameQueue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

func (q *frameQueue) snapshot() QueueStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.stats
	s.Queued = q.count()
	return s
}

// fifo is a queue of frames in a slice; popping from the front is O(1) and the slice is
// compacted once half of it is dead.
type fifo struct {
	items []frame
	head  int
}

func (f *fifo) len() int { return len(f.items) - f.head }

func (f *fifo) push(fr frame) { f.items = append(f.items, fr) }

func (f *fifo) front() *frame {
	if f.head >= len(f.items) {
		return nil
	}
	return &f.items[f.head]
}

func (f *fifo) pop() frame {
	fr := f.items[f.head]
	f.items[f.head] = frame{} // let the line be collected
	f.head++
	switch {
	case f.head == len(f.items):
		f.items, f.head = f.items[:0], 0
	case f.head > 1024 && f.head*2 > len(f.items):
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:])
		f.items, f.head = f.items[:n], 0
	}
	return fr
}

func (f *fifo) pushFront(frs []frame) {
	if len(frs) == 0 {
		return
	}
	f.items = append(append([]frame(nil), frs...), f.items[f.head:]...)
	f.head = 0
}

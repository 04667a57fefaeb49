package acpproxy

import (
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// feederMaxBytes bounds what waits for the tap. Past it the tap is behind by more than a burst
// of tool output, and the forwarding path drops the tap's copy rather than wait or grow.
const feederMaxBytes = 128 << 20

// A burst is traffic forwarded back to back: at least burstBytes with no pause of burstGap (a
// pause longer than a busy machine's scheduling hiccups). While one lasts, the tap waits (up to
// holdFor, and while its backlog is under half its bound), so that the tap, the posts and the
// dashboard taking them do not compete with the peers and the forwarding for the CPU: a session
// loaded with its whole history, or a tool streaming its output, crosses at the speed of a pipe,
// and the tap catches up in the pause that follows. Ordinary traffic (a frame at a time) never
// makes a burst, and is tapped at once.
const (
	burstBytes = 64 << 10
	burstGap   = 10 * time.Millisecond
	holdFor    = 250 * time.Millisecond
)

// tapFeeder hands what the proxy forwards to the tap on a goroutine of its own, so forwarding a
// chunk costs one copy of it (into a ring, see chunkRing) and never waits on the tap's line
// splitting and parsing. Chunks of
// both directions go through one queue in the order they were forwarded: each is queued before
// it is written to its peer, so a request is queued before the agent can have read it, let
// alone answered, and the tap sees the two in that order.
type tapFeeder struct {
	tap *Tap
	max int

	mu        sync.Mutex
	idle      sync.Cond  // signalled when pending empties
	pending   []tapChunk // from head on
	head      int
	bytes     int
	busy      bool    // the goroutine is feeding a batch it took out
	lost      [2]bool // a chunk of that direction was dropped since the last one queued
	closed    bool
	ends      int // directions whose end was queued; after both, nothing more comes
	wake      chan struct{}
	finished  chan struct{} // closed when the goroutine has fed everything and stopped
	ring      chunkRing     // the copies of chunks, while they wait for the tap
	idleSince time.Time     // when the goroutine last took every chunk queued; its own

	// The burst under way: when it began, when its last chunk came, and its size.
	burstStart, burstLast time.Time
	burst                 int
}

// tapChunk is one forwarded chunk, or the end of one direction's stream.
type tapChunk struct {
	dir     acp.Direction
	at      time.Time
	b       []byte
	end     bool
	lost    bool // chunks of this direction were dropped just before this one
	ringEnd int  // b lies in the feeder's ring and ends there; 0: b is the tap's to keep
}

func newTapFeeder(t *Tap, max int) *tapFeeder {
	f := &tapFeeder{tap: t, max: max, wake: make(chan struct{}, 1), finished: make(chan struct{})}
	f.idle.L = &f.mu
	go f.run()
	return f
}

// put queues a copy of b, read from the peer that sends in direction dir.
func (f *tapFeeder) put(dir acp.Direction, b []byte) {
	f.queue(tapChunk{dir: dir, at: f.tap.now(), b: b})
}

// end queues the end of direction dir's stream.
func (f *tapFeeder) end(dir acp.Direction) {
	f.queue(tapChunk{dir: dir, at: f.tap.now(), end: true})
}

func (f *tapFeeder) queue(c tapChunk) {
	slot := dirSlot(c.dir)
	now := time.Now() // the tap's clock may be a test's; bursts are timed by the real one
	f.mu.Lock()
	if now.Sub(f.burstLast) >= burstGap {
		f.burstStart, f.burst = now, 0
	}
	f.burstLast, f.burst = now, f.burst+len(c.b)
	if f.closed {
		f.mu.Unlock()
		return
	}
	if !c.end && f.bytes+len(c.b) > f.max {
		f.lost[slot] = true
		f.mu.Unlock()
		return
	}
	c.lost, f.lost[slot] = f.lost[slot], false
	if !c.end {
		// The copy is made under the lock, as the ring is; it is a memmove of one chunk.
		if cp, end := f.ring.alloc(len(c.b)); cp != nil {
			copy(cp, c.b)
			c.b, c.ringEnd = cp, end
		} else {
			c.b = append([]byte(nil), c.b...)
		}
	}
	if c.end {
		if f.ends++; f.ends == 2 {
			f.closed = true
		}
	}
	f.pending = append(f.pending, c)
	f.bytes += len(c.b)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *tapFeeder) run() {
	defer close(f.finished)
	for range f.wake {
		f.gather()
		for {
			f.mu.Lock()
			if f.head == len(f.pending) {
				clear(f.pending)
				f.pending, f.head = f.pending[:0], 0
				f.busy = false
				f.idle.Broadcast()
				closed := f.closed
				if closed {
					f.ring.close() // nothing more is queued, and everything queued was taken
				}
				f.mu.Unlock()
				if closed {
					return
				}
				f.idleSince = time.Now()
				break
			}
			// Looked at before every chunk, so a burst that begins while the tap works through a
			// backlog holds it again.
			if d := f.hold(time.Now()); d > 0 {
				f.mu.Unlock()
				time.Sleep(d)
				continue
			}
			c := f.pending[f.head]
			f.pending[f.head] = tapChunk{}
			if f.head++; f.head > 1024 && f.head*2 > len(f.pending) {
				n := copy(f.pending, f.pending[f.head:])
				clear(f.pending[n:])
				f.pending, f.head = f.pending[:n], 0
			}
			f.busy = true
			f.mu.Unlock()
			if c.lost {
				f.tap.lose(c.dir)
			}
			if c.end {
				f.tap.endAt(c.dir, c.at)
			} else {
				// A chunk in the ring is given back next, so the tap copies what it keeps.
				f.tap.feedAt(c.dir, c.at, c.b, c.ringEnd == 0)
			}
			f.mu.Lock()
			f.bytes -= len(c.b)
			var spare []byte
			if c.ringEnd > 0 {
				f.ring.free(c.ringEnd)
				spare = f.ring.trim()
			}
			f.mu.Unlock()
			if spare != nil {
				// Giving back a burst's megabytes takes a while: not under the lock the
				// forwarding path takes.
				releaseRing(spare)
				f.mu.Lock()
				f.ring.trimmed()
				f.mu.Unlock()
			}
		}
	}
}

// gather lets the chunks forwarded in the next moment join the one that woke the tap, when
// chunks come close together (the tap had been idle for less than gatherBelow) and the stream
// is not ending. While the tap sleeps here, queueing a chunk only fills the wake channel: the
// forwarding path wakes no thread for it. At a few thousand frames a second that wake-up per
// frame (a futex call, and a second thread running beside the forwarder) cost more than the
// tap's own work; the dashboard, which is posted to every Interval (200 ms), does not see the
// difference. Frames further apart are taken at once: sleeping would add a timer's wake-up to
// each.
func (f *tapFeeder) gather() {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if !closed && time.Since(f.idleSince) < gatherBelow {
		time.Sleep(tapGather)
	}
}

// tapGather is how long the tap waits for more chunks after one came; gatherBelow is the pause
// between chunks under which it does.
const (
	tapGather   = 5 * time.Millisecond
	gatherBelow = 2 * time.Millisecond
)

// hold is how long the tap should wait before looking again, with f.mu held: while a burst goes
// on, until it pauses; zero when nothing holds it back.
func (f *tapFeeder) hold(now time.Time) time.Duration {
	if f.closed || f.burst < burstBytes || f.bytes >= f.max/2 || now.Sub(f.burstStart) >= holdFor {
		return 0
	}
	return max(burstGap-now.Sub(f.burstLast), 0)
}

// drain waits until the tap has taken every chunk queued so far.
func (f *tapFeeder) drain() {
	f.mu.Lock()
	for f.head < len(f.pending) || f.busy {
		f.idle.Wait()
	}
	f.mu.Unlock()
}

package hub

import "sync"

// Subscription is one subscriber's view of the hub: a set of pending fragments, at most one per
// key, waiting to be drained. A typical consumer loops on Ready, checks Overflowed, then Drains.
// All methods are safe for concurrent use.
type Subscription struct {
	hub        *Hub
	topics     []string // deduplicated; immutable after Subscribe
	maxPending int
	ready      chan struct{}

	// mu guards everything below. Publishers and the consumer hold it only to merge or copy at
	// most maxPending entries, which is what keeps a slow consumer from slowing publishers.
	mu      sync.Mutex
	pending []Fragment // first-publish order since the last Drain
	// index maps key -> position in pending, and is kept only while pending holds more than
	// linearPending fragments: below that, pending is searched in order.
	index      map[string]int
	overflowed bool
	closed     bool
	// woken says the consumer has been woken for what pending holds: pending holds a fragment
	// that is not quiet, or quiet ones held long enough (Fragment.Quiet).
	woken bool
}

// Ready returns a channel that receives a value whenever pending gains a fragment that is not
// quiet (Fragment.Quiet) since the last Drain, when quiet ones have been held for the hub's
// QuietDelay, and when the subscription overflows. It has capacity one, so a burst of publishes wakes the
// consumer once; a wakeup may find nothing left to drain if an earlier Drain already took it.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Drain appends the pending fragments to dst and clears them. There is one fragment per key, the
// newest by Seq, in the order the keys were first published since the previous Drain, so a page
// sees elements appear in the order they were created. Passing the previous result's dst[:0]
// lets a consumer loop without allocating. While the subscription is overflowed it appends
// nothing.
//
// Seq is compared only among unsent fragments: once drained, a key is forgotten, because
// remembering every key ever sent would make memory grow with history instead of MaxPending. A
// consumer fed by racing publishers or overlapping topics that must never send an older version
// after a newer one should remember the last Seq it sent per key.
func (s *Subscription) Drain(dst []Fragment) []Fragment {
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = append(dst, s.pending...)
	s.reset()
	return dst
}

// Overflowed reports whether more than MaxPending distinct keys piled up unsent. Fragments were
// then dropped, so the consumer can no longer patch its page and must resync from the store.
func (s *Subscription) Overflowed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overflowed
}

// Close unsubscribes from every topic and drops pending fragments. It is idempotent, and a
// Publish racing with it is harmless: the fragments are discarded.
func (s *Subscription) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.release()
	s.mu.Unlock()
	// Unsubscribe after releasing s.mu: no code path holds the hub lock and a subscription lock
	// at once, so there is no lock order to get wrong.
	s.hub.unsubscribe(s)
}

// deliver merges frags into pending and wakes the consumer for the first one since the last
// Drain that is not quiet.
func (s *Subscription) deliver(frags []Fragment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.overflowed {
		return
	}
	loud := false
	for _, f := range frags {
		if i := s.find(f.Key); i >= 0 {
			// Equal Seq replaces, so publishers that leave Seq at zero still get
			// last-publish-wins; only a strictly older fragment is ignored.
			if f.Seq >= s.pending[i].Seq {
				s.pending[i] = f
				loud = loud || !f.Quiet
			}
			continue
		}
		if len(s.pending) >= s.maxPending {
			s.overflowed = true
			s.release()
			s.signal()
			return
		}
		s.pending = append(s.pending, f)
		loud = loud || !f.Quiet
		switch n := len(s.pending); {
		case n == linearPending+1:
			s.reindex()
		case n > linearPending+1:
			s.index[f.Key] = n - 1
		}
	}
	if loud && !s.woken {
		s.woken = true
		s.signal()
	}
}

// nudge wakes the consumer for the quiet fragments pending holds, if nothing else has.
func (s *Subscription) nudge() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 && !s.woken && !s.closed {
		s.woken = true
		s.signal()
	}
}

// linearPending is how many pending fragments are searched in order rather than through index.
// A subscriber that keeps up holds one change's fragments at a time (the overview sends a dozen
// for a session's group), and comparing a dozen keys costs less than hashing them into a map:
// with a thousand open overviews, the map was most of what a publish cost per subscriber.
const linearPending = 16

// find is the position of key in pending, or -1.
func (s *Subscription) find(key string) int {
	if len(s.pending) > linearPending {
		if i, ok := s.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range s.pending {
		if s.pending[i].Key == key {
			return i
		}
	}
	return -1
}

// reindex builds index afresh from pending, which has just outgrown linearPending.
func (s *Subscription) reindex() {
	if s.index == nil {
		s.index = make(map[string]int, 2*linearPending)
	}
	clear(s.index)
	for i := range s.pending {
		s.index[s.pending[i].Key] = i
	}
}

// reset empties pending but keeps its storage, so a steady consumer reuses the same buffers
// every round. index is left as it is: it is consulted only once pending outgrows
// linearPending again, and reindex clears it then (clear beats deleting the drained keys one by
// one even on a map grown by a past burst: about 0.15µs for 1024 slots, against about 40ns per
// deleted key). Entries are zeroed so the backing array does not keep old fragments' Data alive until it
// happens to be overwritten.
//
// Storage a burst grew is dropped once a drain takes less than a quarter of it: a page's backlog
// of a thousand sessions' changes must not stay resident for every open socket after the burst
// has passed.
func (s *Subscription) reset() {
	s.woken = false
	if c := cap(s.pending); c > keepPending && len(s.pending) < c/4 {
		s.release()
		return
	}
	clear(s.pending)
	s.pending = s.pending[:0]
}

// keepPending is the pending storage a subscription always keeps once it has grown that far.
const keepPending = 64

// release empties pending and drops its storage. An overflowed subscriber has shown it is not
// keeping up and a closed one needs nothing, so keeping MaxPending-sized buffers for either would
// spend memory where it is least useful.
func (s *Subscription) release() {
	s.woken = false
	s.pending = nil
	s.index = nil
}

// Wake makes Ready fire as if something had been delivered, so a consumer can wait on Ready
// alone and still be woken for a reason of its own (its connection went away): a select on two
// channels for every frame was a tenth of a socket's CPU in the fan-out profile, and a plain
// receive locks one channel instead of two.
func (s *Subscription) Wake() { s.signal() }

// signal wakes the consumer without ever blocking: if a wakeup is already queued, the consumer
// has not yet looked and will see the new state when it does.
func (s *Subscription) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Package hub fans rendered fragments out to subscribers by topic. Each subscriber keeps only the
// newest unsent fragment per key, so a slow browser skips stale plan versions instead of stalling
// publishers or growing a queue. It knows nothing of websockets or HTML and uses the standard
// library only.
package hub

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxPending is the MaxPending used when Options leaves it unset. A dashboard page rarely
// shows more than a few hundred live elements, so more distinct unsent keys than this means the
// subscriber is better served by a fresh render from the store than by a backlog.
const DefaultMaxPending = 1024

// Fragment is one rendered update. Key identifies what it replaces (an element id on the page);
// a newer fragment with the same key supersedes an unsent older one. Data is shared, read-only
// bytes: rendered once, sent to every subscriber, so nobody may modify it after Publish. Seq is
// the store's change sequence number; it decides which of two fragments with the same key is
// newer when they arrive through different topics or racing publishers.
type Fragment struct {
	Key  string
	Seq  uint64
	Data []byte
	// At is when the change was announced (zero when unknown), so whoever writes the fragment
	// out can tell how long it took to get there.
	At time.Time
	// Sum is a digest of what the element shows, apart from Seq (zero when unknown), so whoever
	// writes the fragment out can tell it from what a page already shows.
	Sum uint64
	// Of, Whole and Shows say which pages the fragment is for when a container is sent both
	// whole and in parts (see live.Fragment): whoever writes it out picks by what the page shows.
	Of    string
	Whole bool
	Shows []string
	// Patch, when set, returns a smaller frame with the same effect on a page whose element
	// shows the markup of digest Base (nil when there is none). It is worked out on first use
	// and shared: a fragment nobody needs the patch of costs none.
	Patch func() []byte
	Base  uint64
	// Load, when set, works out Data, Sum, Patch and Base (the fragment as it would be without
	// Load) on first use, shared; false when that failed, and nothing is to be sent. A container
	// sent whole only to pages that do not show it yet is rendered only when one needs it: on an
	// overview whose pages all show the session, rendering its group whole for every change was
	// a third of the work between the commit and the first socket write.
	Load func() (Fragment, bool)
	// Quiet says the fragment is expected to change nothing on any page: it shows what the
	// previous fragment of its key showed. It is delivered without waking the subscriber, which
	// takes it with its next wake-up, or Options.QuietDelay later at the latest. Whoever writes
	// it out still decides, as for any fragment, whether the page needs it: a page that came to
	// show something else (a store read racing the change) gets it late, never not at all. A
	// session's group redone for a change to one of its plans is quiet, and waking every open
	// overview to find that out was a fifth of the fan-out's work.
	Quiet bool
}

// Options configures a Hub. The zero value is usable.
type Options struct {
	// MaxPending is how many distinct unsent keys a subscriber may hold before it is marked
	// overflowed; it bounds per-subscriber memory. Zero or negative means DefaultMaxPending.
	MaxPending int
	// QuietDelay is how long a subscriber may hold quiet fragments (Fragment.Quiet) before it is
	// woken for them alone. Zero or negative means DefaultQuietDelay.
	QuietDelay time.Duration
}

// DefaultQuietDelay is the QuietDelay used when Options leaves it unset: short enough that a page
// a quiet fragment does change is put right before a person notices, long enough that a busy
// hub wakes its subscribers for quiet fragments a few times a second at most.
const DefaultQuietDelay = 100 * time.Millisecond

// Hub routes fragments from publishers to the subscriptions of a topic. It is safe for concurrent
// use; create one with New.
type Hub struct {
	maxPending int
	quietDelay time.Duration
	// quietArmed says a wake-up for held quiet fragments is due (flushQuiet's timer is set).
	quietArmed atomic.Bool

	// mu guards topics. Each slice in topics is immutable once stored: Subscribe and Close
	// replace it with a modified copy, so Publish can hold the read lock just long enough to
	// fetch the slice and then deliver with no hub lock held. Subscriptions change rarely
	// compared with publishes, so paying the copy there keeps Publish allocation-free.
	mu     sync.RWMutex
	topics map[string][]*Subscription
}

// New returns an empty hub.
func New(opts Options) *Hub {
	limit := opts.MaxPending
	if limit <= 0 {
		limit = DefaultMaxPending
	}
	quiet := opts.QuietDelay
	if quiet <= 0 {
		quiet = DefaultQuietDelay
	}
	return &Hub{maxPending: limit, quietDelay: quiet, topics: make(map[string][]*Subscription)}
}

// Subscribe returns a subscription that receives every fragment published to any of topics from
// now on. Listing a topic twice has no extra effect. The caller must Close it when done, or the
// hub keeps delivering to it.
func (h *Hub) Subscribe(topics ...string) *Subscription {
	s := &Subscription{
		hub:        h,
		maxPending: h.maxPending,
		ready:      make(chan struct{}, 1),
	}
	for _, t := range topics {
		if !slices.Contains(s.topics, t) {
			s.topics = append(s.topics, t)
		}
	}
	h.mu.Lock()
	for _, t := range s.topics {
		old := h.topics[t]
		subs := make([]*Subscription, len(old), len(old)+1)
		copy(subs, old)
		h.topics[t] = append(subs, s)
	}
	h.mu.Unlock()
	return s
}

// Publish hands frags to every current subscriber of topic. It never waits for a subscriber to
// drain: each delivery only merges into that subscriber's bounded pending set. A subscriber that
// joins or leaves during Publish may or may not receive frags.
func (h *Hub) Publish(topic string, frags ...Fragment) {
	if len(frags) == 0 {
		return
	}
	h.mu.RLock()
	subs := h.topics[topic]
	h.mu.RUnlock()
	for _, s := range subs {
		s.deliver(frags)
	}
	if len(subs) > 0 && slices.ContainsFunc(frags, func(f Fragment) bool { return f.Quiet }) && h.quietArmed.CompareAndSwap(false, true) {
		time.AfterFunc(h.quietDelay, h.flushQuiet)
	}
}

// flushQuiet wakes every subscriber that holds only quiet fragments. It disarms first: a quiet
// fragment delivered after a subscriber was looked at here arms the next flush.
func (h *Hub) flushQuiet() {
	h.quietArmed.Store(false)
	h.mu.RLock()
	var all []*Subscription
	for _, subs := range h.topics {
		all = append(all, subs...)
	}
	h.mu.RUnlock()
	for _, s := range all {
		s.nudge()
	}
}

// Subscribers reports how many open subscriptions listen to topic, so publishers can skip
// rendering fragments nobody will receive.
func (h *Hub) Subscribers(topic string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.topics[topic])
}

// unsubscribe removes s from its topics. It builds new slices rather than editing in place
// because concurrent Publish calls may still be iterating over the old ones.
func (h *Hub) unsubscribe(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range s.topics {
		old := h.topics[t]
		i := slices.Index(old, s)
		if i < 0 {
			continue
		}
		if len(old) == 1 {
			// Drop empty topics so a long-running server does not accumulate one map entry per
			// plan it ever showed.
			delete(h.topics, t)
			continue
		}
		subs := make([]*Subscription, 0, len(old)-1)
		subs = append(subs, old[:i]...)
		h.topics[t] = append(subs, old[i+1:]...)
	}
}

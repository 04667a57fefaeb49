package permissions

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// Store keeps the offered requests and the answers queued for their proxies. Ids are given in
// compact form. Each method is atomic, also across instances sharing a database: an answer is
// queued once and taken once.
type Store interface {
	// Offer calls check with the earlier offer of the same request (stream and id; nil when
	// there is none) and, when it returns nil, stores r in its place, as one step; an answer
	// already queued for it stays queued.
	Offer(ctx context.Context, r Request, check func(old *Request) error) error
	// Claim binds stream to owner unless it is bound already, and returns the owner it is
	// bound to, as one step (the first claimant wins, also across instances). at marks the
	// stream used; a binding unused for StreamIdle whose stream has no requests kept may be
	// forgotten.
	Claim(ctx context.Context, stream, owner string, at time.Time) (string, error)
	// Resolve records that a request ended, unless it had; it reports whether it did. It keeps
	// the newest maxResolved ended requests and forgets older ones.
	Resolve(ctx context.Context, stream string, id json.RawMessage, by string, o *acp.PermissionOutcome, at time.Time) (bool, error)
	// Answer calls check with the request (nil when there is none) and, when it returns nil,
	// marks the request answered and queues a for its proxy, as one step.
	Answer(ctx context.Context, stream string, id json.RawMessage, a Answer, check func(*Request) error) error
	// Take removes and returns the answers queued for stream's proxy, oldest first.
	Take(ctx context.Context, stream string) ([]Answer, error)
	// List returns the requests kept, in no order.
	List(ctx context.Context) ([]Request, error)
}

type key struct{ stream, id string }

// StreamIdle is how long a stream's binding to its owner outlives its last use when it has no
// requests kept: a proxy polls every 20 s, so a stream idle this long was given up.
const StreamIdle = 24 * time.Hour

// Memory looks for idle stream bindings once it keeps maxIdleStreams, and past maxStreams
// forgets the least recently used binding without requests: a token inventing stream names
// cannot grow the map without bound, and a live proxy (polling at least every minute) is never
// the least recently used.
const (
	maxIdleStreams = 1024
	maxStreams     = 1 << 16
)

type streamOwner struct {
	owner string
	used  time.Time
}

// Memory is the Store of one process.
type Memory struct {
	mu       sync.Mutex
	reqs     map[key]*Request
	answers  map[string][]Answer // by stream, not yet taken
	resolved []key               // oldest first, bounded
	streams  map[string]streamOwner
	sweepAt  int // how many bindings make the next Claim look for idle ones
}

// NewMemory returns an empty store in memory.
func NewMemory() *Memory {
	return &Memory{reqs: map[key]*Request{}, answers: map[string][]Answer{}, streams: map[string]streamOwner{}, sweepAt: maxIdleStreams}
}

// Offer stores r if check allows it.
func (m *Memory) Offer(_ context.Context, r Request, check func(old *Request) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key{r.Stream, string(r.ID)}
	var old *Request
	if p := m.reqs[k]; p != nil {
		c := *p
		old = &c
	}
	if err := check(old); err != nil {
		return err
	}
	m.reqs[k] = &r
	return nil
}

// Claim binds stream to owner unless it is bound.
func (m *Memory) Claim(_ context.Context, stream, owner string, at time.Time) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.streams[stream]; ok {
		if s.owner == owner && at.After(s.used) {
			m.streams[stream] = streamOwner{owner, at}
		}
		return s.owner, nil
	}
	if len(m.streams) >= m.sweepAt {
		m.forgetIdle(at, len(m.streams) >= maxStreams)
		// Doubling keeps the sweeps' cost linear in the claims; only a full map, which a
		// token inventing names would cause, sweeps at every new stream.
		m.sweepAt = min(max(maxIdleStreams, 2*len(m.streams)), maxStreams)
	}
	m.streams[stream] = streamOwner{owner, at}
	return owner, nil
}

// forgetIdle drops the bindings of streams unused for StreamIdle that have no requests kept;
// full, it drops the least recently used of those when none is idle.
func (m *Memory) forgetIdle(now time.Time, full bool) {
	kept := map[string]bool{}
	for k := range m.reqs {
		kept[k.stream] = true
	}
	lru, dropped := "", false
	for st, s := range m.streams {
		switch {
		case kept[st]:
		case now.Sub(s.used) > StreamIdle:
			delete(m.streams, st)
			dropped = true
		case lru == "" || s.used.Before(m.streams[lru].used):
			lru = st
		}
	}
	if full && !dropped && lru != "" {
		delete(m.streams, lru)
	}
}

// Resolve records that a request ended.
func (m *Memory) Resolve(_ context.Context, stream string, id json.RawMessage, by string, o *acp.PermissionOutcome, at time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key{stream, string(id)}
	p := m.reqs[k]
	if p == nil || p.ResolvedBy != "" {
		return false, nil
	}
	p.ResolvedBy, p.Outcome, p.Resolved, p.Answered = by, o, at, false
	m.resolved = append(m.resolved, k)
	for len(m.resolved) > maxResolved {
		delete(m.reqs, m.resolved[0])
		m.resolved = m.resolved[1:]
	}
	return true, nil
}

// Answer queues a if check allows it.
func (m *Memory) Answer(_ context.Context, stream string, id json.RawMessage, a Answer, check func(*Request) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.reqs[key{stream, string(id)}]
	if p == nil {
		return check(nil)
	}
	c := *p
	if err := check(&c); err != nil {
		return err
	}
	p.Answered = true
	m.answers[stream] = append(m.answers[stream], a)
	return nil
}

// Take removes and returns stream's queued answers.
func (m *Memory) Take(_ context.Context, stream string) ([]Answer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	got := m.answers[stream]
	delete(m.answers, stream)
	return got, nil
}

// List returns the requests kept.
func (m *Memory) List(context.Context) ([]Request, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Request, 0, len(m.reqs))
	for _, p := range m.reqs {
		out = append(out, *p)
	}
	return out, nil
}

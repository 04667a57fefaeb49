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
	// Offer stores r, replacing an earlier offer of the same request (stream and id); an
	// answer already queued for it stays queued.
	Offer(ctx context.Context, r Request) error
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

// Memory is the Store of one process.
type Memory struct {
	mu       sync.Mutex
	reqs     map[key]*Request
	answers  map[string][]Answer // by stream, not yet taken
	resolved []key               // oldest first, bounded
}

// NewMemory returns an empty store in memory.
func NewMemory() *Memory {
	return &Memory{reqs: map[key]*Request{}, answers: map[string][]Answer{}}
}

// Offer stores r.
func (m *Memory) Offer(_ context.Context, r Request) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key{r.Stream, string(r.ID)}
	m.reqs[k] = &r
	return nil
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

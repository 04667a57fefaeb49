package plans

import (
	"container/list"
	"sync"
)

// Streams keeps the connection state of recent ingest streams (what each stream's peers
// negotiated, its requests awaiting answers), least recently used dropped first, so the state
// stays bounded however many clients post.
type Streams struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*list.Element
	order *list.List
}

// StreamLease is a stream's state held by one request: messages of a stream apply in order.
type StreamLease struct {
	id string
	*Stream
	mu sync.Mutex
}

// NewStreams keeps the state of at most max streams.
func NewStreams(max int) *Streams {
	return &Streams{max: max, byID: map[string]*list.Element{}, order: list.New()}
}

// Get returns stream id's state, held until Done. An empty id is a one-off stream.
func (ss *Streams) Get(id string) *StreamLease {
	if id == "" {
		e := &StreamLease{Stream: NewStream()}
		e.mu.Lock()
		return e
	}
	ss.mu.Lock()
	el, ok := ss.byID[id]
	if ok {
		ss.order.MoveToFront(el)
	} else {
		el = ss.order.PushFront(&StreamLease{id: id, Stream: NewStream()})
		ss.byID[id] = el
		if ss.order.Len() > ss.max {
			old := ss.order.Back()
			ss.order.Remove(old)
			delete(ss.byID, old.Value.(*StreamLease).id)
		}
	}
	ss.mu.Unlock()
	e := el.Value.(*StreamLease)
	e.mu.Lock()
	return e
}

// Done lets the next request of the stream go on.
func (e *StreamLease) Done() { e.mu.Unlock() }

package live

import "sync/atomic"

// shared is a value worked out once, on first use, by whoever needs it first, for every
// socket that needs it: a fragment's patch, a container rendered whole.
//
// sync.OnceValue did this, but the sockets that asked while the first one worked it out
// queued on its mutex, and the mutex wakes its waiters one at a time, each only once the one
// before it had taken and released it: with a hundred sockets on one change, the last of them
// waited through a chain of a hundred wake-ups (the fan-out's mutex profile: nearly all of its
// contention). Waiters here wait on a channel whose close wakes them all at once.
type shared[T any] struct {
	state atomic.Uint32 // idle, working or done
	done  chan struct{} // closed once v is set
	fn    func() T
	v     T
}

const (
	sharedIdle uint32 = iota
	sharedWorking
	sharedDone
)

// newShared returns the value fn works out, not yet worked out.
func newShared[T any](fn func() T) *shared[T] {
	return &shared[T]{done: make(chan struct{}), fn: fn}
}

// get returns the value, working it out if nobody has yet, or waiting for whoever is.
func (s *shared[T]) get() T {
	if s.state.Load() == sharedDone {
		return s.v
	}
	if s.state.CompareAndSwap(sharedIdle, sharedWorking) {
		// Whatever fn does, the waiters are let go: a panic here is not theirs to hang on.
		defer close(s.done)
		s.v = s.fn()
		s.fn = nil
		s.state.Store(sharedDone)
		return s.v
	}
	<-s.done
	return s.v
}

package live

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestSharedWorksOutOnce: however many ask at once, the value is worked out once and every one
// of them gets it.
func TestSharedWorksOutOnce(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	s := newShared(func() int {
		calls.Add(1)
		<-release // the others ask while it is worked out
		return 42
	})
	var wg sync.WaitGroup
	got := make([]int, 50)
	for i := range got {
		wg.Go(func() { got[i] = s.get() })
	}
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("worked out %d times", n)
	}
	for i, v := range got {
		if v != 42 {
			t.Fatalf("asker %d got %d", i, v)
		}
	}
	if v := s.get(); v != 42 {
		t.Errorf("afterwards: %d", v)
	}
}

// TestSharedPanicFreesWaiters: a panic while working the value out is the worker's; those
// waiting for it are let go with the zero value instead of hanging.
func TestSharedPanicFreesWaiters(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	s := newShared(func() []byte {
		close(started)
		<-release
		panic("render")
	})
	go func() {
		defer func() { _ = recover() }()
		s.get()
	}()
	<-started
	waited := make(chan []byte)
	go func() { waited <- s.get() }()
	close(release)
	if v := <-waited; v != nil {
		t.Errorf("waiter got %q", v)
	}
}

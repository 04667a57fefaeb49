package plans

import (
	"fmt"
	"testing"
)

// TestStreamsBounded: a stream's state is kept between requests, the least recently used is
// dropped past the bound, and a request without a stream id gets state of its own.
func TestStreamsBounded(t *testing.T) {
	ss := NewStreams(2)
	a := ss.Get("a")
	a.SetAgent("first")
	a.Done()
	for i := range 3 {
		ss.Get(fmt.Sprint("s", i)).Done()
	}
	if len(ss.byID) != 2 {
		t.Fatalf("%d streams kept, want the bound 2", len(ss.byID))
	}
	if _, ok := ss.byID["a"]; ok {
		t.Fatal("the least recently used stream was kept")
	}
	one, two := ss.Get(""), ss.Get("")
	if one.Stream == two.Stream {
		t.Fatal("two one-off streams share state")
	}
	one.Done()
	two.Done()
	kept := ss.Get("s2")
	again := kept.Stream
	kept.Done()
	if ss.Get("s2").Stream != again {
		t.Fatal("a stream's state was not kept between requests")
	}
}

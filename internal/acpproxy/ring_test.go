package acpproxy

import (
	"bytes"
	"testing"

	"github.com/plandash/plandash/internal/acp"
)

// The ring hands out space in order and takes it back in the same order; a chunk never overlaps
// one still in use, whatever the sizes, and a chunk that does not fit gets nil.
func TestChunkRingNeverOverlaps(t *testing.T) {
	r := chunkRing{buf: make([]byte, ringKeep)} // small, so that it fills and wraps
	type use struct {
		b   []byte
		end int
		val byte
	}
	var live []use
	sizes := []int{1000, 70000, 3, 131072, 5000, 120000, 9, 64000}
	for i := range 5000 {
		n := sizes[i%len(sizes)] + i%17
		if b, end := r.alloc(n); b != nil {
			if len(b) != n {
				t.Fatalf("asked for %d bytes, got %d", n, len(b))
			}
			v := byte(i)
			for j := range b {
				b[j] = v
			}
			live = append(live, use{b, end, v})
		}
		// Give back the oldest now and then, as a tap behind by a varying amount does.
		for len(live) > 0 && (i%3 == 0 || len(live) > 20) {
			u := live[0]
			if !bytes.Equal(u.b, bytes.Repeat([]byte{u.val}, len(u.b))) {
				t.Fatalf("chunk %d was overwritten while in use", i)
			}
			r.free(u.end)
			live = live[1:]
			if i%7 != 0 {
				break
			}
		}
	}
	for _, u := range live {
		if !bytes.Equal(u.b, bytes.Repeat([]byte{u.val}, len(u.b))) {
			t.Fatal("a chunk was overwritten while in use")
		}
		r.free(u.end)
	}
	if r.chunks != 0 || r.head != 0 || r.tail != 0 {
		t.Fatalf("the ring is not empty after every chunk came back: %+v", r.chunks)
	}
	if b, _ := r.alloc(ringSize); b != nil {
		t.Fatal("a chunk bigger than the ring's share for one was handed out")
	}
}

// Once the ring empties after a burst that reached past its first ringKeep bytes, trim hands out
// what the burst touched beyond them, to give back; until trimmed, chunks come from the front
// only, so none lies in memory being given back.
func TestChunkRingTrimsAfterABurst(t *testing.T) {
	var r chunkRing
	defer r.close()
	var ends []int
	for range 3 * ringKeep / 100_000 {
		b, end := r.alloc(100_000)
		if b == nil {
			t.Fatal("a burst of 3 ringKeep did not fit in the ring")
		}
		b[len(b)-1] = 1
		ends = append(ends, end)
	}
	if r.trim() != nil {
		t.Fatal("trim while chunks are in use")
	}
	for _, end := range ends {
		r.free(end)
	}
	spare := r.trim()
	if len(spare) != ends[len(ends)-1]-ringKeep {
		t.Fatalf("trim gave %d bytes, want the %d the burst touched past ringKeep", len(spare), ends[len(ends)-1]-ringKeep)
	}
	for range 20 {
		if _, end := r.alloc(100_000); end > ringKeep {
			t.Fatalf("a chunk ending at %d was handed out while the ring past %d is being given back", end, ringKeep)
		} else if end == 0 {
			break
		}
	}
	releaseRing(spare)
	r.trimmed()
	if r.trim() != nil {
		t.Fatal("a second trim with nothing touched past ringKeep since the first")
	}
}

// Forwarding a chunk to the tap allocates nothing while the tap keeps up.
func TestTapFeederPutDoesNotAllocate(t *testing.T) {
	// No goroutine takes the chunks: the test gives them back itself, so that only put's
	// allocations are counted.
	f := &tapFeeder{tap: NewTap(TapOptions{}), max: 1 << 30, wake: make(chan struct{}, 1)}
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}` + "\n")
	allocs := testing.AllocsPerRun(200, func() {
		f.put(acp.AgentToClient, line)
		c := f.pending[0]
		if !bytes.Equal(c.b, line) || c.ringEnd == 0 {
			t.Fatal("the chunk queued is not a copy in the ring")
		}
		f.ring.free(c.ringEnd)
		f.pending, f.bytes = f.pending[:0], 0
	})
	if allocs > 0 {
		t.Fatalf("put allocated %.1f times a chunk", allocs)
	}
}

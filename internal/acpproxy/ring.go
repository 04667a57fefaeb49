package acpproxy

// chunkRing is the memory the forwarding path copies chunks into for the tap. The tap takes
// chunks in the order they were queued, so space is handed out and given back in that order,
// as in a ring, and forwarding a chunk allocates nothing: a goroutine that allocates while the
// garbage collector runs may be made to help it, or to wait for it to finish (milliseconds,
// with the tap's and the sink's own allocations driving collections), and that wait would be
// added to frames on their way between IDE and agent. A chunk that does not fit (a bulk read,
// or the tap far behind) is allocated as before. The feeder's lock guards the ring.
//
// Where the system allows (mapRing), the ring is large enough to hold a whole burst, such as a
// long session's replay, and lies outside the Go heap: its pages become resident only as a burst
// reaches them, the collector neither scans nor counts it, and a burst held for the tap no
// longer makes the forwarding goroutines allocate tens of megabytes and pay for the collections
// that follows (they took a third of a 100,000-frame replay's time). Once the ring empties after
// a burst, what it touched past its first ringKeep bytes is given back to the system (trim).
type chunkRing struct {
	buf []byte
	// In use: from head up to tail, or, once the writer has wrapped to the front (tail < head),
	// from head to the last chunk before the wrap and from the front up to tail.
	head, tail int
	chunks     int  // handed out and not yet given back
	used       int  // the furthest end handed out since the last trim: what may be resident
	trimming   bool // the pages past ringKeep are being given back: only the front is handed out
	mapped     bool // buf is mapRing's, not the heap's
}

// ringSize holds a long session's replay (a 100,000-frame one is 32 MB); ringKeep, a few hundred
// frames of ordinary size (the tap keeps up with interactive traffic within a chunk or two), is
// what stays resident between bursts.
const (
	ringSize = 64 << 20
	ringKeep = 1 << 20
)

// alloc returns n bytes of the ring and where they end (for free), or nil when they do not fit.
func (r *chunkRing) alloc(n int) (b []byte, end int) {
	if n == 0 || n > ringSize/8 {
		return nil, 0 // a bulk read: a few of them would fill the ring
	}
	if r.buf == nil {
		if r.buf = mapRing(ringSize); r.buf != nil {
			r.mapped = true
		} else {
			r.buf = make([]byte, ringKeep) // nothing mapped here: a small ring on the heap
		}
	}
	size := len(r.buf)
	if r.trimming {
		size = min(size, ringKeep)
	}
	var off int
	switch {
	case r.tail >= r.head && r.tail+n <= size:
		off = r.tail
	case r.tail >= r.head && n < r.head: // wrap to the front; the rest of the end waits
		off = 0
	case r.tail < r.head && r.tail+n < r.head: // strictly: tail == head means empty
		off = r.tail
	default:
		return nil, 0
	}
	r.tail = off + n
	r.chunks++
	r.used = max(r.used, r.tail)
	return r.buf[off:r.tail:r.tail], r.tail
}

// free gives back the oldest chunk handed out, which ends at end.
func (r *chunkRing) free(end int) {
	r.head = end
	if r.chunks--; r.chunks == 0 {
		r.head, r.tail = 0, 0
	}
}

// trim returns what a burst touched past ringKeep once the ring is empty again, for the caller
// to give back to the system (releaseRing) without holding the feeder's lock, and then to call
// trimmed; meanwhile only the front of the ring is handed out. It returns nil when there is
// nothing to give back.
func (r *chunkRing) trim() []byte {
	if r.chunks != 0 || r.trimming || r.used <= ringKeep {
		return nil
	}
	r.trimming = true
	return r.buf[ringKeep:r.used]
}

// trimmed ends a trim.
func (r *chunkRing) trimmed() {
	r.trimming, r.used = false, min(r.used, ringKeep)
}

// close gives a mapped ring back to the system once nothing in it is in use.
func (r *chunkRing) close() {
	if r.mapped {
		unmapRing(r.buf)
	}
	r.buf, r.mapped = nil, false
}

package acpproxy

// chunkRing is the memory the forwarding path copies chunks into for the tap. The tap takes
// chunks in the order they were queued, so space is handed out and given back in that order,
// as in a ring, and forwarding a chunk allocates nothing: a goroutine that allocates while the
// garbage collector runs may be made to help it, or to wait for it to finish (milliseconds,
// with the tap's and the sink's own allocations driving collections), and that wait would be
// added to frames on their way between IDE and agent. A chunk that does not fit (a bulk read,
// or the tap far behind) is allocated as before. The feeder's lock guards the ring.
type chunkRing struct {
	buf []byte
	// In use: from head up to tail, or, once the writer has wrapped to the front (tail < head),
	// from head to the last chunk before the wrap and from the front up to tail.
	head, tail int
	chunks     int // handed out and not yet given back
}

// ringSize holds a few hundred frames of ordinary size: the tap keeps up with interactive
// traffic within a chunk or two.
const ringSize = 1 << 20

// alloc returns n bytes of the ring and where they end (for free), or nil when they do not fit.
func (r *chunkRing) alloc(n int) (b []byte, end int) {
	if n == 0 || n > ringSize/8 {
		return nil, 0 // a bulk read: a few of them would fill the ring
	}
	if r.buf == nil {
		r.buf = make([]byte, ringSize)
	}
	var off int
	switch {
	case r.tail >= r.head && r.tail+n <= len(r.buf):
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
	return r.buf[off:r.tail:r.tail], r.tail
}

// free gives back the oldest chunk handed out, which ends at end.
func (r *chunkRing) free(end int) {
	r.head = end
	if r.chunks--; r.chunks == 0 {
		r.head, r.tail = 0, 0
	}
}

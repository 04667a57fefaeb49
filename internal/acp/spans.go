package acp

import "sort"

// spans remembers where the containers of one document end, once a walk over them has found
// out, so that the walks that follow step over each in one move. Decoding a message walks the
// same bytes again and again: the envelope's members are found by stepping over msg, msg's by
// stepping over params, then params', update's and plan's by stepping over what each holds, and
// a plan's entries were counted, then iterated, then read: a plan update of 60 entries was read
// eight times over. With spans, the check of the line (valid) notes where its containers end, and
// the walks after it read only the members they look for; params decoded on their own
// (DecodeSessionNotification) are noted by the first walk that steps over each container.
//
// A nil *spans remembers nothing: the walks are the plain ones.
type spans struct {
	doc  []byte // the document; a slice that does not lie in it is walked the plain way
	list []span // ascending by start
	// frozen spans note nothing more, so that the messages sharing them may be decoded on
	// several goroutines at once: DecodeLine freezes its spans once it has walked the line.
	frozen bool
}

// span is a container's start and end (just past its last byte) as offsets in doc; end is -1
// while it is being walked.
type span struct{ start, end int32 }

// Only containers of at least minSpan bytes, at most spanDepth levels below the one a walk
// steps over, are remembered: a shorter one is stepped over about as fast as it is looked up,
// and the bounds keep the list under the document's size whatever its shape.
const (
	minSpan   = 64
	spanDepth = 8
)

func newSpans(doc []byte) *spans {
	if len(doc) > 1<<31-1 {
		return nil // offsets are int32; no line is that long
	}
	// Room for a container every 128 bytes, about what a plan's entries need, so the list is
	// seldom grown by copying.
	return &spans{doc: doc, list: make([]span, 0, len(doc)/128)}
}

// offset is the offset of b[i] in doc, or -1 when b does not lie in doc. Slices of one array
// share its end, so their capacities tell them apart; the address check makes sure it is the
// same array.
func (s *spans) offset(b []byte, i int) int {
	off := cap(s.doc) - cap(b[i:])
	if off < 0 || off >= len(s.doc) || &s.doc[off] != &b[i] {
		return -1
	}
	return off
}

// valueEnd is valueEnd, remembering the containers it walks and stepping over those it knows.
func (s *spans) valueEnd(b []byte, i int) int {
	if s == nil || i >= len(b) || b[i] != '{' && b[i] != '[' {
		return valueEnd(b, i)
	}
	off := s.offset(b, i)
	if off < 0 {
		return valueEnd(b, i)
	}
	k := sort.Search(len(s.list), func(k int) bool { return s.list[k].start >= int32(off) })
	if k < len(s.list) && s.list[k].start == int32(off) && s.list[k].end >= 0 {
		// A container ends inside any value that holds it; a slice cut shorter than that (no
		// decoder makes one) is walked instead.
		if e := i + int(s.list[k].end) - off; e <= len(b) {
			return e
		}
	}
	if s.frozen {
		return valueEnd(b, i)
	}
	return s.walk(b, i, off)
}

// walk steps over the container at b[i] (doc's offset off) as valueEnd does, noting its
// containers.
func (s *spans) walk(b []byte, i, off int) int {
	var open [spanDepth]int
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = stringEnd(b, j) - 1
		case '{', '[':
			s.opened(&open, depth, off+j-i)
			depth++
		case '}', ']':
			depth--
			s.closed(&open, depth, off+j+1-i)
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(b)
}

// opened notes a container starting at doc's offset start, depth levels below the first one
// walked, when it comes after everything noted. open holds the list index of the span open at
// each depth (-1: not noted), for closed.
func (s *spans) opened(open *[spanDepth]int, depth, start int) {
	if depth >= spanDepth {
		return
	}
	open[depth] = -1
	if n := len(s.list); n == 0 || int32(start) > s.list[n-1].start {
		open[depth] = n
		s.list = append(s.list, span{start: int32(start), end: -1})
	}
}

// closed notes that the container open at depth ends at doc's offset end.
func (s *spans) closed(open *[spanDepth]int, depth, end int) {
	if depth >= spanDepth || open[depth] < 0 {
		return
	}
	sp := &s.list[open[depth]]
	sp.end = int32(end)
	// Anything noted inside a short container is shorter still, and gone by now.
	if sp.end-sp.start < minSpan && open[depth] == len(s.list)-1 {
		s.list = s.list[:len(s.list)-1]
	}
}

// lookup is Lookup, stepping over members with s.
func (s *spans) lookup(obj []byte, out [][]byte, keys ...string) {
	lookupIter(objIter{b: obj, i: skipSpace(obj, 0) + 1, sp: s}, out, keys)
}

// arrayIter is NewArrayIter, stepping over elements with s.
func (s *spans) arrayIter(arr []byte) ArrayIter {
	return ArrayIter{b: arr, i: skipSpace(arr, 0) + 1, sp: s}
}

// countElems is countElems, stepping over elements with s.
func (s *spans) countElems(arr []byte) int {
	n := 0
	for it := s.arrayIter(arr); ; n++ {
		if _, ok := it.Next(); !ok {
			return n
		}
	}
}

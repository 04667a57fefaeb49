package live

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/textdiff"
)

// A page that holds an element's previous markup is sent only what changed in it: a plan card
// whose one entry moved on is a few dozen bytes of edits instead of the card. The live layer
// remembers the newest markup it rendered of each element and, when it renders the element
// anew, also encodes the edits from that markup (hub.Fragment.Patch, against Base, the digest
// of the markup the edits start from). Whoever writes the fragment out sends the edits to a page
// known to hold exactly that markup, and the whole fragment to any other.

// patchFrame is the edits from the markup a page holds to the element's new markup: ops are a
// count of UTF-16 code units to keep (> 0) or to drop (< 0), or a string to insert; N is the
// new markup's length in UTF-16 code units, which the page checks.
type patchFrame struct {
	T      string `json:"t"` // "p"
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	Seq    uint64 `json:"seq"`
	N      int    `json:"n"`
	Ops    []any  `json:"ops"`
}

const (
	// minPatch is the smallest markup worth patching: below it, the edits and their frame cost
	// about as much as the markup.
	minPatch = 512
	// patchBudget bounds the diff's search (textdiff.IDs), so two unlike renders of a large
	// element cost little before the whole is sent instead.
	patchBudget = 1 << 16
	// maxRemembered bounds the markup remembered for patching. A patch needs the element's
	// previous render, so the markup is worth keeping only for elements that change again soon:
	// 4 MB is the groups of a couple of hundred busy sessions, more than the pages people keep
	// open show. It was 16 MB, dropped all at once when full: with a thousand sessions posting
	// in turn that was wiped before any session came round again (no patch was ever sent from
	// it), yet it held up to 16 MB live, and the collector lets the heap grow to twice what is
	// live (bench memory: the largest thing in the heap at the peak).
	maxRemembered = 4 << 20
)

// renders is the newest markup rendered of each element.
type renders struct {
	mu    sync.Mutex
	last  map[string]rendered
	bytes int
}

type rendered struct {
	sum  uint64
	html []byte
	// topic is the hub topic it was published to: "" when it went to one page only (a catch-up,
	// a snapshot, a container loaded whole for the pages that lacked it).
	topic string
}

// swap records html (digest sum), published to topic, as element id's newest markup and returns
// the one it replaces and the copy it keeps. html is borrowed: it is copied only when it differs
// from what was remembered (most elements of a redone group are as they were).
func (r *renders) swap(id, topic string, sum uint64, html []byte) (prev rendered, kept []byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]rendered{}
	}
	if r.bytes > maxRemembered {
		r.evict()
	}
	prev, ok = r.last[id]
	if ok && prev.sum == sum {
		if prev.topic != topic {
			r.last[id] = rendered{sum, prev.html, topic}
		}
		return prev, prev.html, ok
	}
	kept = bytes.Clone(html)
	r.last[id] = rendered{sum, kept, topic}
	r.bytes += len(kept) - len(prev.html)
	return prev, kept, ok
}

// evict drops remembered markup until a quarter of the budget is free, elements in map order,
// which is random: most of what was remembered survives, where starting over dropped every
// patch at once. The caller holds r.mu.
func (r *renders) evict() {
	for id, e := range r.last {
		if r.bytes <= maxRemembered*3/4 {
			return
		}
		delete(r.last, id)
		r.bytes -= len(e.html)
	}
}

// forget drops every remembered markup.
func (r *renders) forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last, r.bytes = nil, 0
}

// patch encodes the edits from old to html as element id's patch frame, or returns nil when
// sending the whole (whole bytes) is about as cheap.
func patch(id, parent string, seq uint64, old, html []byte, whole int) []byte {
	var s patchScratch
	return s.patch(id, parent, seq, old, html, whole)
}

// patchScratch is the working memory of one patch at a time, kept for the next (Live.patches):
// the tokens' bounds, the interned tokens and the diff's own. A patch is worked out for every
// change to an element a page holds, and this memory, allocated afresh each time, was half of
// what the fan-out allocated per change (bench fanout's allocation profile), so twice as many
// collections as the rest of the change needed.
type patchScratch struct {
	ba, bb, ia, ib []int32
	ids            map[string]int32
	diff           textdiff.Differ
}

// maxPatchScratch is the most tokens a patchScratch keeps for reuse: an element's edits are
// usually within a few kilobytes of markup, and a rare large diff need not stay resident.
const maxPatchScratch = 16 << 10

func (s *patchScratch) put(p *sync.Pool) {
	if cap(s.ba) <= maxPatchScratch && cap(s.bb) <= maxPatchScratch && len(s.ids) <= maxPatchScratch {
		p.Put(s)
	}
}

// patch is the package's patch, in s's memory.
func (s *patchScratch) patch(id, parent string, seq uint64, old, html []byte, whole int) []byte {
	if len(html) < minPatch || len(old) < minPatch {
		return nil
	}
	// An element's edits are local (an entry's status, a count), so the markup both renders
	// share at either end is kept whole rather than tokenised and diffed: that work, done for
	// every change, was most of what the fan-out allocated.
	pre, suf := sharedEnds(old, html)
	ma, mb := old[pre:len(old)-suf], html[pre:len(html)-suf]
	s.ba, s.bb = appendTokens(s.ba[:0], ma), appendTokens(s.bb[:0], mb)
	ba, bb := s.ba, s.bb
	if s.ids == nil {
		s.ids = make(map[string]int32, len(ba)/8)
	}
	clear(s.ids)
	ids := s.ids
	intern := func(out []int32, m []byte, bounds []int32) []int32 {
		out = slices.Grow(out[:0], len(bounds)-1)[:len(bounds)-1]
		for i := range out {
			t := m[bounds[i]:bounds[i+1]]
			id, ok := ids[string(t)]
			if !ok {
				id = int32(len(ids))
				ids[string(t)] = id
			}
			out[i] = id
		}
		return out
	}
	ops := make([]any, 0, 16)
	var ins bytes.Buffer
	add := func(n int) { // keep (n > 0) or drop (n < 0), merged with the previous op of its kind
		if ins.Len() > 0 {
			ops = append(ops, ins.String())
			ins.Reset()
		}
		if k := len(ops); k > 0 {
			if prev, ok := ops[k-1].(int); ok && (prev > 0) == (n > 0) {
				ops[k-1] = prev + n
				return
			}
		}
		ops = append(ops, n)
	}
	if pre > 0 {
		add(utf16Len(old[:pre]))
	}
	s.ia, s.ib = intern(s.ia, ma, ba), intern(s.ib, mb, bb)
	for _, r := range s.diff.IDs(s.ia, s.ib, patchBudget) {
		switch r.Op {
		case textdiff.Keep:
			add(utf16Len(ma[ba[r.A0]:ba[r.A1]]))
		case textdiff.Delete:
			add(-utf16Len(ma[ba[r.A0]:ba[r.A1]]))
		case textdiff.Insert:
			ins.Write(mb[bb[r.B0]:bb[r.B1]])
		}
	}
	if suf > 0 {
		add(utf16Len(old[len(old)-suf:]))
	}
	if ins.Len() > 0 {
		ops = append(ops, ins.String())
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as encode: parsed by the page's script, never put into a document as it is
	if err := enc.Encode(patchFrame{T: "p", ID: id, Parent: parent, Seq: seq, N: utf16Len(html), Ops: ops}); err != nil {
		return nil
	}
	if b.Len()*2 > whole {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// sharedEnds is how many bytes a and b share at their start and, apart from those, at their end,
// each cut back to a token boundary (just after a separator at the start, at a separator at the
// end), so that what lies between tokenises as it would within the whole.
func sharedEnds(a, b []byte) (pre, suf int) {
	n := min(len(a), len(b))
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	for pre > 0 && !separator(a[pre-1]) {
		pre--
	}
	for rest := n - pre; suf < rest && a[len(a)-1-suf] == b[len(b)-1-suf]; {
		suf++
	}
	for suf > 0 && !separator(a[len(a)-suf]) {
		suf--
	}
	return pre, suf
}

// separator reports whether c is a token of its own (tokens).
func separator(c byte) bool {
	switch c {
	case '<', '>', '"', '\'', '=', '/', ' ', '\n', '\t':
		return true
	}
	return false
}

// appendTokens splits markup into runs of plain characters and single separators (<, >, quotes, =,
// /, white space), so that a changed attribute value, word or number is one token. It returns
// their bounds, in dst's memory: token i is html[b[i]:b[i+1]].
func appendTokens(dst []int32, html []byte) []int32 {
	out := append(slices.Grow(dst[:0], len(html)/3+2), 0)
	start := 0
	for i, c := range html {
		if separator(c) {
			if start < i {
				out = append(out, int32(i))
			}
			out = append(out, int32(i+1))
			start = i + 1
		}
	}
	if start < len(html) {
		out = append(out, int32(len(html)))
	}
	return out
}

// utf16Len is b's length as the page's script counts it: UTF-16 code units, after JSON
// decoding replaced each invalid byte with U+FFFD.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

package delta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/plandash/plandash/internal/plans"
)

// Fields is a plan's JSON object split into its top-level members, kept as their encoded bytes.
type Fields map[string]json.RawMessage

// splitFields splits a stored revision, checking it is JSON.
func splitFields(body []byte) (Fields, error) {
	var f Fields
	if err := json.Unmarshal(body, &f); err != nil {
		return nil, fmt.Errorf("decode revision: %w", err)
	}
	return f, nil
}

// splitOwn splits a plan's JSON that json.Marshal just wrote: valid, so it is only scanned.
func splitOwn(body []byte) (Fields, error) {
	if f, err := scanObject(body); err == nil {
		return f, nil
	}
	return splitFields(body)
}

// delta turns one revision's fields into the next's: members set or deleted, and for the
// entries array (when both have one) the hunks of entries removed and inserted.
type delta struct {
	Set     map[string]json.RawMessage `json:"s,omitempty"`
	Del     []string                   `json:"d,omitempty"`
	Entries []hunk                     `json:"e,omitempty"`
}

// hunk replaces Del entries of the base, starting at its index At, with Ins. Hunks are in order
// and do not overlap.
type hunk struct {
	At  int               `json:"a"`
	Del int               `json:"n,omitempty"`
	Ins []json.RawMessage `json:"i,omitempty"`
}

const (
	entriesKey  = "entries"
	revisionKey = "revision" // not in deltas: the row's key column has it
)

// diffFields computes the delta from base to next.
func diffFields(base, next Fields) delta {
	var d delta
	for k, v := range next {
		old, ok := base[k]
		if ok && bytes.Equal(old, v) {
			continue
		}
		if ok && k == entriesKey {
			if h, ok := diffEntries(old, v); ok {
				d.Entries = h
				continue
			}
		}
		if d.Set == nil {
			d.Set = map[string]json.RawMessage{}
		}
		d.Set[k] = v
	}
	for k := range base {
		if _, ok := next[k]; !ok {
			d.Del = append(d.Del, k)
		}
	}
	slices.Sort(d.Del)
	return d
}

// diffEntries is the hunks from one entries array to another, by a minimal diff of their
// elements; ok is false when either is not an array.
func diffEntries(a, b json.RawMessage) ([]hunk, bool) {
	ea, okA := elements(a)
	eb, okB := elements(b)
	if !okA || !okB {
		return nil, false
	}
	same := func(x, y json.RawMessage) bool { return bytes.Equal(x, y) }
	key := func(x json.RawMessage) string { return string(x) }
	return hunks(ea, eb, same, key, func(x json.RawMessage) json.RawMessage { return x }), true
}

// hunks is the hunks that turn a into b, whether entries are their JSON (diffEntries) or
// structs (diffEntryStructs): same says two entries are equal, key is a string equal exactly
// when they are, and encode is an inserted entry as the plan's JSON has it. Most updates change
// an entry or two, so only the entries between the common head and tail go through the diff.
func hunks[E any](a, b []E, same func(x, y E) bool, key func(E) string, encode func(E) json.RawMessage) []hunk {
	head := 0
	for head < len(a) && head < len(b) && same(a[head], b[head]) {
		head++
	}
	tailN := 0
	for tailN < len(a)-head && tailN < len(b)-head && same(a[len(a)-1-tailN], b[len(b)-1-tailN]) {
		tailN++
	}
	a, b = a[head:len(a)-tailN], b[head:len(b)-tailN]
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	encodeAll := func(es []E) []json.RawMessage {
		out := make([]json.RawMessage, len(es))
		for i, e := range es {
			out[i] = encode(e)
		}
		return out
	}
	if len(a) == 0 || len(b) == 0 || len(a) == 1 && len(b) == 1 {
		// Only removals, only insertions, or one entry changed (the two differ, or the head
		// would have taken them): one hunk is what the diff would find. The common update,
		// one entry's status, skips the diff and its copies.
		return []hunk{{At: head, Del: len(a), Ins: encodeAll(b)}}
	}
	keys := func(es []E) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = key(e)
		}
		return out
	}
	var hs []hunk
	i, j := 0, 0 // next entry of a, of b
	lines := plans.Diff(keys(a), keys(b))
	for k := 0; k < len(lines); {
		if lines[k].Op == plans.Same {
			i, j, k = i+1, j+1, k+1
			continue
		}
		h := hunk{At: head + i}
		for ; k < len(lines) && lines[k].Op != plans.Same; k++ {
			if lines[k].Op == plans.Removed {
				h.Del++
				i++
			} else {
				h.Ins = append(h.Ins, encode(b[j]))
				j++
			}
		}
		hs = append(hs, h)
	}
	return hs
}

// elements splits a JSON array into its elements. The arrays it is given are members of fields
// that json.Marshal wrote or encoding/json checked, so scanning them is exact.
func elements(b json.RawMessage) ([]json.RawMessage, bool) {
	if e, err := scanArray(b); err == nil {
		return e, true
	}
	var e []json.RawMessage
	return e, json.Unmarshal(b, &e) == nil
}

// apply builds the next revision's fields from base and d; base is not changed.
func (d delta) apply(base Fields) (Fields, error) {
	next := make(Fields, len(base)+len(d.Set))
	for k, v := range base {
		next[k] = v
	}
	for _, k := range d.Del {
		delete(next, k)
	}
	for k, v := range d.Set {
		next[k] = v
	}
	if len(d.Entries) == 0 {
		return next, nil
	}
	var ea []json.RawMessage
	if err := json.Unmarshal(base[entriesKey], &ea); err != nil {
		return nil, fmt.Errorf("revision delta: base entries: %w", err)
	}
	out := make([]json.RawMessage, 0, len(ea))
	pos := 0
	for _, h := range d.Entries {
		if h.At < pos || h.Del < 0 || h.At+h.Del > len(ea) {
			return nil, fmt.Errorf("revision delta: hunk at %d removing %d does not fit %d entries", h.At, h.Del, len(ea))
		}
		out = append(append(out, ea[pos:h.At]...), h.Ins...)
		pos = h.At + h.Del
	}
	out = append(out, ea[pos:]...)
	next[entriesKey] = joinRaw(out)
	return next, nil
}

// joinRaw encodes elements as a compact JSON array, as encoding/json would.
func joinRaw(rs []json.RawMessage) json.RawMessage {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	b.WriteByte(']')
	return json.RawMessage(b.String())
}

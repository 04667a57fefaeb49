package acp

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzSpans holds the walks that remember containers to the plain ones: on any valid JSON, each
// value ends where valueEnd says, whether its spans were noted (the first walk), are known (the
// second), are frozen, belong to another copy of the document, or were noted by valid.
func FuzzSpans(f *testing.F) {
	for _, l := range seedLines(f) {
		f.Add(l)
	}
	f.Add(planUpdateLine(3))
	f.Add([]byte(`[[[[[[[[[[[["` + strings.Repeat("x", 80) + `"]]]]]]]]]]]]`))
	f.Add([]byte(`{"a":{"b":[1,2,{"c":"` + strings.Repeat(`\"`, 40) + `"}]},"a":[{},[]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = TrimSpace(b)
		if !Valid(b) {
			return
		}
		sp := newSpans(b)
		for pass := range 3 {
			if pass == 2 {
				sp.frozen = true
			}
			checkSpans(t, sp, b, 0)
		}
		if e, want := sp.valueEnd(bytes.Clone(b), 0), valueEnd(b, 0); e != want {
			t.Fatalf("another copy of the document ends at %d, want %d", e, want)
		}
		checkOrder(t, sp)
		// Noted by the check of the document instead, as DecodeLine does.
		sp = newSpans(b)
		if !valid(b, sp) {
			t.Fatal("valid with spans refuses what Valid takes")
		}
		sp.frozen = true
		checkSpans(t, sp, b, 0)
		checkOrder(t, sp)
	})
}

func checkOrder(t *testing.T, sp *spans) {
	t.Helper()
	for i, s := range sp.list {
		if s.end < s.start+minSpan || i > 0 && sp.list[i-1].start >= s.start {
			t.Fatalf("spans short or out of order: %v", sp.list)
		}
	}
}

// checkSpans compares sp's walk of the value at v[i] with the plain walk, and then of every
// member or element inside it, each in the slice a decoder would have (the value's own).
func checkSpans(t *testing.T, sp *spans, v []byte, i int) {
	t.Helper()
	e, want := sp.valueEnd(v, i), valueEnd(v, i)
	if e != want {
		t.Fatalf("the value at %d of %q ends at %d, want %d", i, v, e, want)
	}
	val := v[i:e]
	switch {
	case IsObject(val):
		it := objIter{b: val, i: skipSpace(val, 0) + 1, sp: sp}
		plain := newObjIter(val)
		for {
			k, m, ok := it.next()
			pk, pm, pok := plain.next()
			if ok != pok || !bytes.Equal(k, pk) || !bytes.Equal(m, pm) {
				t.Fatalf("in %q: member %q %q, want %q %q", val, k, m, pk, pm)
			}
			if !ok {
				return
			}
			checkSpans(t, sp, m, 0)
		}
	case IsArray(val):
		it, plain := sp.arrayIter(val), NewArrayIter(val)
		for {
			el, ok := it.Next()
			pel, pok := plain.Next()
			if ok != pok || !bytes.Equal(el, pel) {
				t.Fatalf("in %q: element %q, want %q", val, el, pel)
			}
			if !ok {
				return
			}
			checkSpans(t, sp, el, 0)
		}
	}
}

// TestSpansNoteAPlan checks that decoding a plan update walks its entries once: checking the
// line notes the line, params, update, plan, entries and every entry, and the decoding after
// it finds each of them noted.
func TestSpansNoteAPlan(t *testing.T) {
	line := planUpdateLine(60)
	msgs, err := DecodeLine(line)
	if err != nil {
		t.Fatal(err)
	}
	sp := msgs[0].spans
	if got := len(sp.list); got != 5+60 { // the line, params, update, plan, entries; 60 entries
		t.Fatalf("%d spans noted, want 65: %v", got, sp.list)
	}
	n, _, err := msgs[0].SessionNotification()
	if err != nil || len(n.Update.Plan.Entries) != 60 {
		t.Fatalf("decoded %+v, %v", n.Update.Plan, err)
	}
}

package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/web/templates"
)

// TestPageElements: a socket sends what its page would apply and shows something new, and
// nothing else, as the page's script would keep the element.
func TestPageElements(t *testing.T) {
	p := newPageElements()
	steps := []struct {
		name string
		f    hub.Fragment
		send bool
	}{
		{"a first change of an element", hub.Fragment{Key: "a", Seq: 10, Sum: 1}, true},
		{"the same, renumbered", hub.Fragment{Key: "a", Seq: 12, Sum: 1}, false},
		{"something else, but older than what the page holds", hub.Fragment{Key: "a", Seq: 11, Sum: 2}, false},
		{"an equal seq", hub.Fragment{Key: "a", Seq: 12, Sum: 3}, false},
		{"something else, newer", hub.Fragment{Key: "a", Seq: 13, Sum: 2}, true},
		{"back to the first, newer", hub.Fragment{Key: "a", Seq: 14, Sum: 1}, true},
		{"another element, same digest", hub.Fragment{Key: "b", Seq: 15, Sum: 1}, true},
		{"no digest", hub.Fragment{Key: "a", Seq: 16}, true},
		{"no digest again", hub.Fragment{Key: "a", Seq: 17}, true},
		{"a resync", hub.Fragment{Data: []byte(`{"t":"resync"}`)}, true},
	}
	for _, s := range steps {
		if sent := !p.has(s.f); sent != s.send {
			t.Errorf("%s (%+v): sent %v, want %v", s.name, s.f, sent, s.send)
		}
	}
	// Past its bound it remembers nothing more, and sends every change of what it does not know.
	p = newPageElements()
	for i := range maxPageElements + 1 {
		p.has(hub.Fragment{Key: fmt.Sprint("e", i), Seq: 1, Sum: 1})
	}
	if len(p.shown) != maxPageElements {
		t.Fatalf("%d elements remembered, want the bound %d", len(p.shown), maxPageElements)
	}
	extra := hub.Fragment{Key: fmt.Sprint("e", maxPageElements), Seq: 2, Sum: 1}
	for range 2 {
		if p.has(extra) {
			t.Fatal("an element past the bound was taken for shown")
		}
	}
}

// TestOverviewSkipsWhatItShows: a tool call changes nothing the overview shows of its session,
// so open overviews are sent nothing for it; a plan change is sent at once.
func TestOverviewSkipsWhatItShows(t *testing.T) {
	clk := &fakeClock{t: time.Now()} // still: the group's "last seen" does not move
	ts := newTestServer(t, testConfig{Now: clk.Now})
	ts.ingest(t, update("s1", planA))
	c := ts.socket(t, "topic=all")
	group := templates.GroupID("s1")
	ts.ingest(t, update("s1", `{"sessionUpdate":"plan","entries":[{"content":"First","priority":"high","status":"pending"}]}`))
	first := next(t, c, group)
	for i := range 5 {
		ts.ingest(t, update("s1", fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"t%d","title":"Step %d","status":"pending"}`, i, i)))
	}
	ts.ingest(t, update("s1", `{"sessionUpdate":"plan","entries":[{"content":"Second","priority":"high","status":"pending"}]}`))
	frames(t, c, "the second plan", func(f frame) bool {
		if f.ID != group {
			return false
		}
		if !strings.Contains(f.HTML, "Second") {
			t.Fatalf("a frame that shows what the page has (seq %d after %d): %.200s", f.Seq, first.Seq, f.HTML)
		}
		return true
	})
}

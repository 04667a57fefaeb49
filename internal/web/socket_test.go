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
		s.f.Data = []byte("frame")
		if sent := p.frame(s.f) != nil; sent != s.send {
			t.Errorf("%s (%+v): sent %v, want %v", s.name, s.f, sent, s.send)
		}
	}
	// Past its bound it remembers nothing more, and sends every change of what it does not know.
	p = newPageElements()
	for i := range maxPageElements + 1 {
		p.frame(hub.Fragment{Key: fmt.Sprint("e", i), Seq: 1, Sum: 1, Data: []byte("x")})
	}
	if len(p.shown) != maxPageElements {
		t.Fatalf("%d elements remembered, want the bound %d", len(p.shown), maxPageElements)
	}
	extra := hub.Fragment{Key: fmt.Sprint("e", maxPageElements), Seq: 2, Sum: 1, Data: []byte("x")}
	for range 2 {
		if p.frame(extra) == nil {
			t.Fatal("an element past the bound was taken for shown")
		}
	}
}

// TestPageElementsContainers: a container sent whole and in parts reaches a page as one or the
// other, by whether the page shows it.
func TestPageElementsContainers(t *testing.T) {
	p := newPageElements("g1")
	steps := []struct {
		name string
		f    hub.Fragment
		send bool
	}{
		{"a shown group whole", hub.Fragment{Key: "g1", Seq: 10, Sum: 1, Whole: true}, false},
		{"a part of it", hub.Fragment{Key: "g1-card", Seq: 10, Sum: 2, Of: "g1"}, true},
		{"the same part, renumbered", hub.Fragment{Key: "g1-card", Seq: 11, Sum: 2, Of: "g1"}, false},
		{"a group the page does not show, whole", hub.Fragment{Key: "g2", Seq: 12, Sum: 3, Whole: true}, true},
		{"a part of it", hub.Fragment{Key: "g2-card", Seq: 12, Sum: 4, Of: "g2"}, false},
		{"a snapshot that brings g2", hub.Fragment{Key: "sessions", Seq: 13, Sum: 5, Shows: []string{"g2"}}, true},
		{"g2's part now", hub.Fragment{Key: "g2-card", Seq: 14, Sum: 4, Of: "g2"}, true},
		{"g2 whole no more", hub.Fragment{Key: "g2", Seq: 14, Sum: 6, Whole: true}, false},
		{"g1 removed", hub.Fragment{Key: "g1", Seq: 15, Sum: 7}, true},
		{"g1 whole again", hub.Fragment{Key: "g1", Seq: 16, Sum: 1, Whole: true}, true},
		{"its part, after the whole made the page's copy of it unknown", hub.Fragment{Key: "g1-card", Seq: 17, Sum: 2, Of: "g1"}, false},
		{"a snapshot that brings g1 back", hub.Fragment{Key: "sessions", Seq: 18, Sum: 8, Shows: []string{"g1"}}, true},
		{"a part older than g1 whole", hub.Fragment{Key: "g1-card", Seq: 15, Sum: 9, Of: "g1"}, false},
	}
	for _, s := range steps {
		s.f.Data = []byte("frame")
		if sent := p.frame(s.f) != nil; sent != s.send {
			t.Errorf("%s (%+v): sent %v, want %v", s.name, s.f, sent, s.send)
		}
	}
	if _, ok := p.shown["g1-card"]; ok {
		t.Error("a part of a container sent whole is still remembered")
	}
}

// TestPageElementsPatches: a page is sent an element's patch only when it holds the markup the
// patch starts from.
func TestPageElementsPatches(t *testing.T) {
	p := newPageElements()
	whole := []byte("whole")
	patch := func() []byte { return []byte("patch") }
	steps := []struct {
		name string
		f    hub.Fragment
		want []byte
	}{
		{"unknown: whole", hub.Fragment{Key: "a", Seq: 1, Sum: 1, Patch: patch, Base: 9}, whole},
		{"holds the base: the patch", hub.Fragment{Key: "a", Seq: 2, Sum: 2, Patch: patch, Base: 1}, patch()},
		{"holds another: whole", hub.Fragment{Key: "a", Seq: 3, Sum: 3, Patch: patch, Base: 1}, whole},
		{"no patch: whole", hub.Fragment{Key: "a", Seq: 4, Sum: 4}, whole},
		{"holds it already: nothing", hub.Fragment{Key: "a", Seq: 5, Sum: 4, Patch: patch, Base: 3}, nil},
		{"no patch worth sending: whole", hub.Fragment{Key: "a", Seq: 6, Sum: 5, Patch: func() []byte { return nil }, Base: 4}, whole},
	}
	for _, s := range steps {
		s.f.Data = whole
		if got := p.frame(s.f); string(got) != string(s.want) {
			t.Errorf("%s: sent %q, want %q", s.name, got, s.want)
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
	// planA's change may reach the socket first: it was rendered after the socket subscribed.
	var first frame
	frames(t, c, "the first plan", func(f frame) bool {
		first = f
		return f.ID == group && strings.Contains(f.HTML, "First")
	})
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

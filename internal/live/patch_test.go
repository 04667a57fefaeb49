package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/live/livetest"
)

// applyPatch does what the page's script does with a patch frame, to base as the page got it.
func applyPatch(t *testing.T, base string, frame []byte) string {
	t.Helper()
	var page livetest.Page
	whole, err := encode(Fragment{ID: "x"}, 1, []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Read(whole); err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(frame, &f); err != nil || f["t"] != "p" {
		t.Fatalf("not a patch frame (%v): %s", err, frame)
	}
	f["id"] = "x"
	b, _ := json.Marshal(f)
	got, err := page.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	return got.HTML
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// decoded is s as the page holds it: JSON-decoded, invalid bytes replaced.
func decoded(s string) string {
	var out string
	_ = json.Unmarshal(mustJSON(s), &out)
	return out
}

func card(status, text string) string {
	var b strings.Builder
	b.WriteString(`<article id="p-s-main" class="card plan" data-revision="7"><header><h3>Plan</h3><span class="rev">rev 7</span></header><ol>`)
	for i := range 5 {
		st := "pending"
		if i == 2 {
			st = status
		}
		b.WriteString(`<li class="entry" data-status="` + st + `"><span class="entry-text">Step ` + string(rune('1'+i)) + ` ` + text + `</span> <span class="status-label">` + st + `</span></li>`)
	}
	b.WriteString(`</ol></article>`)
	return b.String()
}

func TestPatch(t *testing.T) {
	f := Fragment{ID: "p-s-main", Parent: "plans"}
	for _, c := range []struct{ name, a, b string }{
		{"one entry moves on", card("pending", "write the tests"), card("in_progress", "write the tests")},
		{"text with accents and an emoji", card("pending", "café 🚀 naïve"), card("completed", "café 🚀 naïve — done")},
		{"invalid UTF-8 kept", card("pending", "bad \xff byte"), card("completed", "bad \xff byte")},
		{"invalid UTF-8 inserted", card("pending", "ok"), card("completed", "now \xfe\xff bad")},
		{"the first byte changes", "<" + card("pending", "a")[1:], "[" + card("pending", "a")[1:]},
		{"the last byte changes", card("pending", "a") + "x", card("pending", "a") + "y"},
		{"the old and more", card("pending", "a"), card("pending", "a") + "<p>more</p>"},
		{"the old and less", card("pending", "a") + "<p>more</p>", card("pending", "a")},
		{"a word grows inside", card("pending", "write the tests"), card("pending", "write the testsuite")},
	} {
		whole, err := encode(Fragment{ID: f.ID, Parent: f.Parent}, 2, []byte(c.b))
		if err != nil {
			t.Fatal(err)
		}
		p := patch(f.ID, f.Parent, 2, []byte(c.a), []byte(c.b), len(whole))
		if p == nil {
			t.Fatalf("%s: no patch", c.name)
		}
		if got, want := applyPatch(t, c.a, p), decoded(c.b); got != want {
			t.Fatalf("%s: patched\n%s\nwant\n%s", c.name, got, want)
		}
		if c.name == "one entry moves on" && len(p) > 200 {
			t.Errorf("%s: a %d-byte patch for a one-entry change (the whole is %d): %s", c.name, len(p), len(whole), p)
		}
	}
	// Small markup, or markup unlike the old, goes whole.
	if p := patch(f.ID, f.Parent, 2, []byte("<b>a</b>"), []byte("<b>b</b>"), 100); p != nil {
		t.Errorf("a patch of small markup: %s", p)
	}
	a, b := strings.Repeat("<i>x</i>", 200), strings.Repeat("<b>yy</b>", 200)
	whole, _ := encode(f, 2, []byte(b))
	if p := patch(f.ID, f.Parent, 2, []byte(a), []byte(b), len(whole)); p != nil {
		t.Errorf("a %d-byte patch of markup nothing like the old (%d whole)", len(p), len(whole))
	}
}

// FuzzPatch: whatever two renders are, a patch rebuilds the second from the first as the page
// holds them.
func FuzzPatch(f *testing.F) {
	f.Add(card("pending", "a"), card("done", "b"))
	f.Add(strings.Repeat("é🚀<x>", 200), strings.Repeat("é🚀<y>", 200))
	f.Add(card("pending", "a"), card("pending", "a")+"<b>")
	f.Add(card("pending", "ab"), card("pending", "aXb"))
	var reused patchScratch // the live layer's patches reuse one scratch after another
	f.Fuzz(func(t *testing.T, a, b string) {
		a, b = strings.Repeat(a, 1+minPatch/(len(a)+1)), strings.Repeat(b, 1+minPatch/(len(b)+1))
		whole, err := encode(Fragment{ID: "x"}, 1, []byte(b))
		if err != nil {
			t.Skip()
		}
		p := patch("x", "", 1, []byte(a), []byte(b), len(whole)*4) // patch even when not worth it
		if q := reused.patch("x", "", 1, []byte(a), []byte(b), len(whole)*4); !bytes.Equal(p, q) {
			t.Fatalf("a reused scratch patched %s, a fresh one %s", q, p)
		}
		if p == nil {
			return
		}
		if got, want := applyPatch(t, a, p), decoded(b); got != want {
			t.Fatalf("patched %q, want %q", got, want)
		}
	})
}

// BenchmarkPatchCard: a card whose revision and one entry moved on, as on every plan update.
func BenchmarkPatchCard(b *testing.B) {
	a := []byte(card("pending", "write the tests"))
	c := []byte(strings.ReplaceAll(card("in_progress", "write the tests"), "7", "8"))
	f := Fragment{ID: "p-s-main"}
	var s patchScratch // as the live layer reuses it
	b.ReportAllocs()
	for b.Loop() {
		if s.patch(f.ID, f.Parent, 2, a, c, 1<<20) == nil {
			b.Fatal("no patch")
		}
	}
}

// TestRendersBounded: the markup remembered for patches stays within its budget however many
// elements change, and reaching it drops part of what was remembered, not all of it.
func TestRendersBounded(t *testing.T) {
	var r renders
	html := bytes.Repeat([]byte("x"), 10<<10)
	n := 2 * maxRemembered / len(html)
	for i := range n {
		r.swap(fmt.Sprint("e", i), "all", uint64(i+1), html)
		if r.bytes > maxRemembered+len(html) {
			t.Fatalf("after %d elements %d bytes remembered, budget %d", i+1, r.bytes, maxRemembered)
		}
	}
	if len(r.last) < maxRemembered/len(html)/2 {
		t.Errorf("%d elements remembered after %d changed: eviction dropped too much", len(r.last), n)
	}
}

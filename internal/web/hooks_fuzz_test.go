package web

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHookText: an agent's name from a request's path, quoted in the hook route's refusal, is cut
// to at most the bound (plus the mark of the cut), stays valid UTF-8 when it was, and is kept
// whole when it fits.
func FuzzHookText(f *testing.F) {
	for _, seed := range []string{"", "claude", "nope", strings.Repeat("x", 200), strings.Repeat("é", 40), "a\xffb", "日本語のエージェント名"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		const max = 64
		got := hookText(s, max)
		if len(got) > max+len("…") {
			t.Fatalf("%d bytes, over the bound %d", len(got), max)
		}
		if len(s) <= max && got != s {
			t.Fatalf("%q fits but became %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid %q became invalid %q", s, got)
		}
		if len(s) > max && !strings.HasSuffix(got, "…") {
			t.Fatalf("the cut of %q is not marked: %q", s, got)
		}
	})
}

package demo

import (
	"strings"
	"testing"
)

// splitKeep cuts a message into the chunks an agent streams: nothing is lost or reordered, and
// every chunk but the last ends at a space.
func TestSplitKeep(t *testing.T) {
	for _, s := range []string{
		"",
		"short",
		"I'll add a token-bucket rate limiter in front of the public routes. Let me look at the router first.",
		"a_really_long_identifier_without_any_spaces_at_all and then some words",
		"  leading and trailing spaces  ",
	} {
		parts := splitKeep(s)
		if got := strings.Join(parts, ""); got != s {
			t.Errorf("splitKeep(%q) joined = %q", s, got)
		}
		for i, p := range parts[:len(parts)-1] {
			if !strings.HasSuffix(p, " ") {
				t.Errorf("splitKeep(%q) chunk %d %q does not end at a space", s, i, p)
			}
		}
	}
}

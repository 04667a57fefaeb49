package plans

import (
	"strings"
	"testing"
	"time"
)

func TestSessionCursorRoundTrip(t *testing.T) {
	for _, c := range []SessionCursor{
		{},
		{FirstSeen: time.Date(2026, 11, 24, 1, 2, 3, 456789, time.UTC), ID: "sess:with/odd chars=&?"},
		{ID: "no start time"},
	} {
		got, err := ParseSessionCursor(c.String())
		if err != nil || !got.FirstSeen.Equal(c.FirstSeen) || got.ID != c.ID {
			t.Errorf("round trip of %+v = %+v, %v", c, got, err)
		}
	}
	for _, bad := range []string{"!", "eDph", strings.Repeat("A", maxCursor+1), "MDA6eA" /* 00:x */} {
		if _, err := ParseSessionCursor(bad); err == nil {
			t.Errorf("ParseSessionCursor(%q) accepted", bad)
		}
	}
}

// FuzzParseSessionCursor: a cursor from outside is refused or read as the one cursor that
// prints back to the same text.
func FuzzParseSessionCursor(f *testing.F) {
	f.Add("")
	f.Add(SessionCursor{FirstSeen: time.Unix(1700000000, 5), ID: "s1"}.String())
	f.Add("MDox")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseSessionCursor(s)
		if err != nil {
			return
		}
		if c.String() != s {
			t.Fatalf("%q reads as %+v, which prints as %q", s, c, c.String())
		}
	})
}

func TestLikePatterns(t *testing.T) {
	if got := LikePattern(`A_b%c\`); got != `%a\_b\%c\\%` {
		t.Errorf("LikePattern = %q", got)
	}
	if got := DirPattern("/x_y/"); got != `/x\_y/%` {
		t.Errorf("DirPattern = %q", got)
	}
}

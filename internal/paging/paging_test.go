package paging

import (
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/errs"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []Cursor{{Key: 1}, {Key: -5, ID: "a:b:c"}, {Key: 1 << 62, ID: "ü/é?&="}, {ID: "only-id"}} {
		s := c.String()
		if strings.ContainsAny(s, "+/=?&") {
			t.Errorf("%v: cursor %q is not URL-safe", c, s)
		}
		got, err := Parse(s)
		if err != nil || got != c {
			t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, c)
		}
	}
	if (Cursor{}).String() != "" {
		t.Error("the start has a non-empty cursor")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"!!", "MTo", "Mjo1OmE", "MTowMQ", "MTp4Ong", "MTowOg", strings.Repeat("A", maxCursor+4)} {
		if _, err := Parse(s); errs.KindOf(err) != errs.Invalid {
			t.Errorf("Parse(%q): err %v, want kind invalid", s, err)
		}
	}
}

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		limit string
		want  int
		bad   bool
	}{{"", DefaultLimit, false}, {"1", 1, false}, {"100000", MaxLimit, false}, {"0", 0, true}, {"-3", 0, true}, {"x", 0, true}} {
		r, err := ParseRequest("", tc.limit)
		if (err != nil) != tc.bad || !tc.bad && r.Limit != tc.want {
			t.Errorf("limit %q: %v, %v", tc.limit, r, err)
		}
	}
}

func TestTrim(t *testing.T) {
	key := func(n int) Cursor { return Cursor{Key: int64(n)} }
	r := Request{Limit: 2}
	if rows, next := Trim(r, []int{5, 4, 3}, key); len(rows) != 2 || next != key(4) {
		t.Errorf("over a page: %v next %v", rows, next)
	}
	if rows, next := Trim(r, []int{5, 4}, key); len(rows) != 2 || !next.IsZero() {
		t.Errorf("exactly a page: %v next %v", rows, next)
	}
	if r.Fetch() != 3 || (Request{}).Fetch() != DefaultLimit+1 || (Request{Limit: 1e6}).Fetch() != MaxLimit+1 {
		t.Error("Fetch does not read one row past the clamped page")
	}
}

// FuzzParse: whatever a client sends, a cursor accepted is canonical (it prints back to the
// same text), bounded, and never the start.
func FuzzParse(f *testing.F) {
	f.Add(Cursor{Key: 7, ID: "s"}.String())
	f.Add("")
	f.Add("MTo5OjpgYQ")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if errs.KindOf(err) != errs.Invalid {
				t.Fatalf("error of kind %v", errs.KindOf(err))
			}
			return
		}
		if s == "" {
			if !c.IsZero() {
				t.Fatal("empty text is not the start")
			}
			return
		}
		if c.IsZero() || c.String() != s || len(c.ID) > maxCursor {
			t.Fatalf("accepted %q as %+v, which prints as %q", s, c, c.String())
		}
	})
}

package benchplan

import (
	"encoding/json"
	"testing"
)

func TestNewestRev(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want int64
	}{
		{Line("s", 42), 42},
		{Line("s", 7) + Line("s", 999999) + Line("s", 3), 999999},
		{"nothing here", -1},
		{"rev-12345", -1},             // too short
		{"rev-12x456 rev-000010", 10}, // not digits, then digits
		{"", -1},
	} {
		if got := NewestRev([]byte(c.msg)); got != c.want {
			t.Errorf("NewestRev(%.40q) = %d, want %d", c.msg, got, c.want)
		}
	}
	if !json.Valid([]byte(Line(`a "quoted" id`, 1))) {
		t.Error("Line is not JSON for a session id that needs escaping")
	}
}

func FuzzNewestRev(f *testing.F) {
	f.Add([]byte(Line("s", 1)))
	f.Add([]byte("rev-"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if n := NewestRev(msg); n < -1 || n > 999999 {
			t.Fatalf("NewestRev = %d", n)
		}
	})
}

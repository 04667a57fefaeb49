package hookkit

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestReadEvent(t *testing.T) {
	ctx := context.Background()
	if b, err := ReadEvent(ctx, strings.NewReader(`{"a":1}`), 1<<20, time.Second); err != nil || string(b) != `{"a":1}` {
		t.Fatalf("= %q, %v", b, err)
	}
	if _, err := ReadEvent(ctx, bytes.NewReader(make([]byte, 2<<20+1)), 2<<20, time.Second); err == nil || !strings.Contains(err.Error(), "over the 2 MiB limit") {
		t.Fatalf("an event over the limit: %v", err)
	}
	r, w := io.Pipe() // an open stdin nobody closes
	defer w.Close()
	if _, err := ReadEvent(ctx, r, 1<<20, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "not closed within") {
		t.Fatalf("a stdin left open: %v", err)
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("héllo wörld 🚀", 5)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max%64 + 64
		if max < 0 {
			max = -max
		}
		got := Truncate(s, max)
		if len(s) <= max {
			if got != s {
				t.Fatalf("%q shortened to %q", s, got)
			}
			return
		}
		body := strings.TrimSuffix(got, "…")
		if len(body) > max || !strings.HasPrefix(s, body) || (utf8.ValidString(s) && !utf8.ValidString(body)) {
			t.Fatalf("Truncate(%q, %d) = %q", s, max, got)
		}
	})
}

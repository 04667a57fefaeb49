package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadBody reads bodies around presized, announced truly, announced too big or too small,
// and not announced, through the reader the handlers use, in small reads as a network gives them.
func TestReadBody(t *testing.T) {
	const limit = 3*presized + 100
	for _, c := range []struct {
		name    string
		n       int   // bytes sent
		size    int64 // Content-Length; -1: none
		tooLong bool
	}{
		{"empty", 0, 0, false},
		{"small", 100, 100, false},
		{"presized", presized, presized, false},
		{"over presized", presized + 1, presized + 1, false},
		{"two presized and some", 2*presized + 12345, 2*presized + 12345, false},
		{"at the limit", limit, limit, false},
		{"unannounced", 2*presized + 7, -1, false},
		{"announces more than it sends", presized + 10, 3 * presized, false},
		{"announces less than it sends", presized + 10, 100, false},
		{"announces more than the limit", presized + 10, 1 << 40, false},
		{"over the limit", limit + 1, -1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := bytes.Repeat([]byte("0123456789abcdef"), c.n/16+1)[:c.n]
			w := httptest.NewRecorder()
			r := http.MaxBytesReader(w, io.NopCloser(iotest.HalfReader(bytes.NewReader(want))), limit)
			got, err := readBody(r, c.size, limit)
			var mbe *http.MaxBytesError
			if c.tooLong {
				if !errors.As(err, &mbe) {
					t.Fatalf("err = %v, want *http.MaxBytesError", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes (err %v), want the %d sent", len(got), err, len(want))
			}
		})
	}
	// A failing read is returned, with what came before it.
	got, err := readBody(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(io.ErrUnexpectedEOF)), 10, limit)
	if string(got) != "abc" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("readBody = %q, %v; want \"abc\", the read's error", got, err)
	}
}

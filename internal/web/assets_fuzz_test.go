package web

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// Accept-Encoding and If-None-Match come from any client. Whatever they hold, the parsers
// neither panic nor say yes to what was not asked: gzip is taken only when the header names
// gzip (or *), and a match needs the file's tag (or *) in the list.
func FuzzCacheHeaders(f *testing.F) {
	for _, s := range []string{"gzip", "gzip;q=0", "br, gzip;q=0.5", "*", "identity", "", `"abc", W/"abc.gz"`, ",,,;;;", "GZIP ; q=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Encoding", h)
		if acceptsGzip(r) && !strings.Contains(strings.ToLower(h), "gzip") && !strings.Contains(h, "*") {
			t.Errorf("acceptsGzip(%q) = true without gzip or *", h)
		}
		const etag = `"0123456789abcdef"`
		if etagMatches(h, etag) && !strings.Contains(h, "0123456789abcdef") && !strings.Contains(h, "*") {
			t.Errorf("etagMatches(%q) = true without the tag or *", h)
		}
		if !etagMatches(h+", "+etag, etag) {
			t.Errorf("etagMatches misses the tag after %q", h)
		}
	})
}

package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// flushWait bounds the wait for flushed bytes: a failure deadline, not a measurement.
const flushWait = 20 * time.Second

// A handler that flushes (a long poll's heartbeat, a stream) is not held in the compressor: the
// client reads what was flushed while the handler is still running. Event streams are left as
// they are.
func TestCompressionDoesNotHoldFlushedBytes(t *testing.T) {
	release := make(chan struct{})
	h := compressPages(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := "application/json"
		if r.URL.Path == "/events" {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		_, _ = io.WriteString(w, "first")
		http.NewResponseController(w).Flush()
		<-release
		_, _ = io.WriteString(w, "second")
	}))
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer close(release)
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	for _, tc := range []struct {
		path string
		gzip bool
	}{{"/poll", true}, {"/events", false}} {
		req, err := http.NewRequest("GET", ts.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tc.gzip {
			t.Fatalf("%s: Content-Encoding %q, want gzip=%v", tc.path, resp.Header.Get("Content-Encoding"), tc.gzip)
		}
		got := make(chan string, 1)
		go func() {
			var body io.Reader = resp.Body
			if tc.gzip {
				zr, err := gzip.NewReader(resp.Body)
				if err != nil {
					got <- "error: " + err.Error()
					return
				}
				body = zr
			}
			b := make([]byte, len("first"))
			_, err := io.ReadFull(body, b)
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- string(b)
		}()
		select {
		case s := <-got:
			if s != "first" {
				t.Errorf("%s: read %q before the handler ended, want %q", tc.path, s, "first")
			}
		case <-time.After(flushWait):
			t.Fatalf("%s: the flushed bytes did not arrive within %s while the handler waited", tc.path, flushWait)
		}
	}
}

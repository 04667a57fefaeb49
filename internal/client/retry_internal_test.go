package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// pauses records the pauses a client asks for instead of sleeping them.
type pauses struct {
	mu   sync.Mutex
	list []time.Duration
}

func (p *pauses) sleep(ctx context.Context, d time.Duration) error {
	p.mu.Lock()
	p.list = append(p.list, d)
	p.mu.Unlock()
	return ctx.Err()
}

func (p *pauses) got() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Duration(nil), p.list...)
}

// TestRetryAfterIsHonoured checks the pause is the server's Retry-After, bounded, and the
// client's own doubling backoff otherwise.
func TestRetryAfterIsHonoured(t *testing.T) {
	for _, tc := range []struct {
		retryAfter string
		want       time.Duration
	}{
		{"2", 2 * time.Second},
		{"3600", maxRetryAfter},
	} {
		var n int
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n++; n == 1 {
				w.Header().Set("Retry-After", tc.retryAfter)
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, `{"status":"ok","seq":7}`)
		}))
		var p pauses
		c := New(ts.URL, "")
		c.sleep = p.sleep
		h, err := c.Health(context.Background())
		ts.Close()
		if err != nil || h.Seq != 7 {
			t.Fatalf("Retry-After %s: %+v, %v", tc.retryAfter, h, err)
		}
		if got := p.got(); len(got) != 1 || got[0] != tc.want {
			t.Errorf("Retry-After %s: paused %v, want %v", tc.retryAfter, got, tc.want)
		}
	}
}

// TestConnectionRefused is a server that is not up (yet): every call, even a post that is not
// idempotent, is tried Attempts times with growing pauses, and the error says where it went.
func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close()
	var p pauses
	c := New(addr, "tok", WithRetry(Retry{Attempts: 4, MinDelay: 100 * time.Millisecond, MaxDelay: 250 * time.Millisecond}))
	c.sleep = p.sleep
	_, err = c.Ingest(context.Background(), bytes.NewReader([]byte("{}\n")), IngestOptions{Stream: "s"})
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "POST "+addr+"/api/v1/ingest") || !strings.Contains(err.Error(), "is plandash running") {
		t.Fatalf("err = %v", err)
	}
	got := p.got()
	if len(got) != 3 {
		t.Fatalf("paused %v: want 3 pauses between 4 attempts", got)
	}
	for i, lo := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond} {
		if got[i] < lo || got[i] > lo+lo/4 {
			t.Errorf("pause %d is %v, want %v plus at most a quarter", i, got[i], lo)
		}
	}
}

// TestCancelDuringBackoff ends the retries with the caller's context, returning the last
// failure rather than just "context canceled".
func TestCancelDuringBackoff(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "restarting", http.StatusServiceUnavailable)
	}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c := New(ts.URL, "")
	c.sleep = func(context.Context, time.Duration) error { cancel(); return ctx.Err() }
	_, err := c.Health(ctx)
	if StatusOf(err) != http.StatusServiceUnavailable || !strings.Contains(err.Error(), "restarting") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", -1},
		{"0", 0},
		{"5", 5 * time.Second},
		{"-5", -1},
		{"soon", -1},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	} {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzReadError feeds readError any answer: it never fails, keeps the status, bounds what it
// keeps, and its message always says the method, the route and the status.
func FuzzReadError(f *testing.F) {
	f.Add(401, "application/problem+json", []byte(`{"title":"Unauthorized","status":401,"detail":"missing or wrong token"}`))
	f.Add(409, "application/problem+json; charset=utf-8", []byte(`{"title":"Conflict","status":409,"detail":"decided","request":{"id":"a"}}`))
	f.Add(400, "application/json", []byte(`{"applied":0,"errors":[{"line":1,"code":-32700,"message":"x"}]}`))
	f.Add(502, "text/html", []byte("<html>\n\x00\xff bad gateway"))
	f.Add(503, "", []byte(""))
	f.Fuzz(func(t *testing.T, status int, ctype string, body []byte) {
		if status < 100 || status > 999 {
			return
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}, "Retry-After": {"1"}}, Body: io.NopCloser(bytes.NewReader(body))}
		e := readError("GET", "http://x", "/api/v1/route", resp)
		if e.Status != status || len(e.Body) > maxErrorBody || !bytes.HasPrefix(body, e.Body) {
			t.Fatalf("status %d body %d bytes: kept status %d, %d bytes", status, len(body), e.Status, len(e.Body))
		}
		if !utf8.ValidString(e.Detail) || !utf8.ValidString(e.Title) || strings.ContainsAny(e.Detail+e.Title, "\n\r\x00") {
			t.Fatalf("detail %q, title %q: not one clean line", e.Detail, e.Title)
		}
		if !isJSON(ctype) && len(e.Detail) > maxDetail+len("…") {
			t.Fatalf("a detail of %d bytes from a body that is no problem document", len(e.Detail))
		}
		if (status == http.StatusServiceUnavailable) != (e.RetryAfter == time.Second) {
			t.Fatalf("Retry-After %v on a %d", e.RetryAfter, status)
		}
		msg := e.Error()
		if !strings.HasPrefix(msg, "GET /api/v1/route at http://x: "+strconv.Itoa(status)) {
			t.Fatalf("message %q", msg)
		}
	})
}

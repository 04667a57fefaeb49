package web

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestShutdownAnswersWaitersRetryable: a long poll waiting when the server shuts down gets 503
// with Retry-After, never an empty 200 a client would take for an answer.
func TestShutdownAnswersWaitersRetryable(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	r := ts.create(t, checklist)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.srv.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ts.srv.Serve(ctx, ln) }()
	type answer struct {
		code       int
		retryAfter string
		body       string
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/v1/approvals/"+r.ID+"?wait=60s", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{code: -1, body: err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(b)}
	}()
	// The waiter is parked once the gate has a waiter for the request.
	deadline := time.Now().Add(10 * time.Second)
	for ts.srv.gate.Waiting(r.ID) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the long poll never started waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case a := <-got:
		if a.code != http.StatusServiceUnavailable || a.retryAfter == "" || !strings.Contains(a.body, "shutting down") {
			t.Fatalf("a waiter during shutdown got %d (Retry-After %q): %s", a.code, a.retryAfter, a.body)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the waiter got no answer during shutdown")
	}
	if err := <-served; err != nil && err != http.ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
}

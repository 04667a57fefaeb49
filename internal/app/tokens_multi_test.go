package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/tokens"
)

// TestTokenAcrossInstances: a token made on instance A is taken by instance B at once; revoked
// on A, B refuses it within a second, and what it reported through B names it.
func TestTokenAcrossInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	_, secret, err := a.Tokens.Create(context.Background(), "remote-1", tokens.Ingest, 0)
	if err != nil {
		t.Fatal(err)
	}
	post := func() (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", b.URL+"/api/v1/ingest", strings.NewReader(
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-multi","update":{"sessionUpdate":"plan","entries":[{"content":"x","priority":"low","status":"pending"}]}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(raw)
	}
	if code, raw := post(); code != 200 {
		t.Fatalf("B takes A's token: %d %s", code, raw)
	}
	if code, raw := a.call(t, "GET", "/api/v1/sessions/s-multi", ""); code != 200 || !strings.Contains(string(raw), `"source": "token:remote-1"`) {
		t.Fatalf("A reads the session B recorded: %d %s", code, raw)
	}
	if err := a.Tokens.Revoke(context.Background(), "remote-1"); err != nil {
		t.Fatal(err)
	}
	// B may trust its cached lookup for tokens.CacheTTL; the test waits far longer before failing.
	for deadline := time.Now().Add(10 * time.Second); ; {
		code, raw := post()
		if code == 401 && strings.Contains(raw, "revoked") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B still takes the revoked token: %d %s", code, raw)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
}

// TestRevocationEndsALongPollOnAnotherInstance: a token's long poll waits on instance B; the
// token is revoked on A; B ends the poll with 401 (it learns of the revocation through the
// shared store within a second) instead of returning the decision made afterwards.
func TestRevocationEndsALongPollOnAnotherInstance(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	_, secret, err := a.Tokens.Create(context.Background(), "bot", tokens.Ingest, 0)
	if err != nil {
		t.Fatal(err)
	}
	send := func(in *instance, method, path, body string) (int, string) {
		req, err := http.NewRequest(method, in.URL+path, strings.NewReader(body))
		if err != nil {
			return 0, err.Error()
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	plan := `{"id":"r-multi","title":"T","agent":"x","plan":{"type":"markdown","markdown":"# Plan"}}`
	if code, raw := send(b, "POST", "/api/v1/approvals", plan); code != 201 {
		t.Fatalf("submit on B: %d %s", code, raw)
	}
	type answer struct {
		code int
		raw  string
	}
	done := make(chan answer, 1)
	go func() {
		code, raw := send(b, "GET", "/api/v1/approvals/r-multi?wait=60s", "")
		done <- answer{code, raw}
	}()
	for deadline := time.Now().Add(10 * time.Second); b.Gate.Waiting("r-multi") == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the poll never waited on B")
		}
	}
	if err := a.Tokens.Revoke(context.Background(), "bot"); err != nil {
		t.Fatal(err)
	}
	var got answer
	select {
	case got = <-done:
	case <-time.After(10 * time.Second): // a bound on a hang, not a timing assertion
		a.call(t, "POST", "/api/v1/approvals/r-multi/decision", `{"action":"approve"}`)
		got = <-done
		t.Fatalf("the poll on B went on after the revocation on A, and returned %d %s once decided", got.code, got.raw)
	}
	if got.code != 401 || !strings.Contains(got.raw, "revoked") {
		t.Fatalf("the poll on B after the revocation on A: %d %s, want 401", got.code, got.raw)
	}
}

// TestRevocationClosesASocketOnAnotherInstance: a decide token's live socket is open on B; the
// token is revoked on A; B closes the socket with a policy-violation close while changes keep
// coming, instead of carrying them on.
func TestRevocationClosesASocketOnAnotherInstance(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	_, secret, err := a.Tokens.Create(context.Background(), "lead", tokens.Decide, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(b.URL, "http")+"/ws?topic=all",
		&websocket.DialOptions{Subprotocols: []string{"plandash.v1", "plandash.token." + secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 20)
	a.call(t, "POST", "/api/v1/ingest", planLine("s-before", "before"))
	frameWith(t, c, "before")
	if err := a.Tokens.Revoke(context.Background(), "lead"); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				a.call(t, "POST", "/api/v1/ingest", planLine(fmt.Sprintf("s-after-%d", i), "after"))
			}
		}
	})
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue // frames sent before B noticed
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation {
			t.Fatalf("the socket on B ended with %v, want a close for the revoked token", err)
		}
		return
	}
}

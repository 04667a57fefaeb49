package web

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
	"github.com/plandash/plandash/internal/tokens"
)

// revokeElsewhere revokes name the way `plandash tokens revoke` does: on the database, from
// another process, whose revocation this server learns only through its store.
func revokeElsewhere(t *testing.T, ts *testServer, name string) {
	t.Helper()
	if err := tokens.NewService(ts.db.Tokens(), nil, nil).Revoke(context.Background(), name); err != nil {
		t.Fatal(err)
	}
}

// withCookie sends the request with the cookie value only.
func withCookie(ts *testServer, method, path, cookie string) (int, string) {
	req, _ := http.NewRequest(method, ts.URL+path, nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Issue 25 item 12: an admin per-agent token traded for the browser's cookie
// (POST /api/v1/embed/login) made the server's own cookie, which outlived the token. The
// cookie now stands for the token: it works while the token does and dies when `tokens
// revoke` revokes it, also when a new token takes the name.
func TestCookieDiesWithItsToken(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ops := newToken(t, ts, "ops", tokens.Admin)
	code, _, resp := loginEmbed(t, ts, ops)
	if code != http.StatusNoContent {
		t.Fatalf("embed login with an admin token: %d", code)
	}
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatal("no cookie")
	}
	if code, body := withCookie(ts, "GET", "/api/v1/tokens", cookie); code != 200 {
		t.Fatalf("the cookie on an admin route: %d %s", code, body)
	}
	if code, body := withCookie(ts, "GET", "/embed", cookie); code != 200 || strings.Contains(body, "embed-boot") {
		t.Fatalf("the cookie on the embed view: %d, boot page: %v", code, strings.Contains(body, "embed-boot"))
	}
	revokeElsewhere(t, ts, "ops")
	eventually(t, "the revoked token's cookie refused", func() bool {
		code, _ := withCookie(ts, "GET", "/api/v1/tokens", cookie)
		return code == http.StatusUnauthorized
	})
	if code, body := withCookie(ts, "POST", "/api/v1/embed/login", cookie); code != http.StatusUnauthorized {
		t.Fatalf("the revoked token's cookie traded for a new one: %d %s", code, body)
	}
	if _, body := withCookie(ts, "GET", "/embed", cookie); !strings.Contains(body, "embed-boot") {
		t.Fatal("the revoked token's cookie still opens the embed view")
	}
	// A new token given the name does not bring the old cookie back.
	newToken(t, ts, "ops", tokens.Admin)
	if code, _ := withCookie(ts, "GET", "/api/v1/tokens", cookie); code != http.StatusUnauthorized {
		t.Fatalf("the old cookie after a new token took the name: %d", code)
	}
	// The server's own cookie is unaffected.
	if code, _ := ts.page(t, "/sessions"); code != 200 {
		t.Fatalf("the server's own cookie: %d", code)
	}
}

// loginEmbed trades secret for the embed cookie.
func loginEmbed(t *testing.T, ts *testServer, secret string) (int, string, *http.Response) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/embed/login", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

// A cookie of the old format, or one forged without the server's token, opens nothing.
func TestOldAndForgedCookiesRefused(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	for _, v := range []string{
		"6f1c", // the old fixed HMAC's shape
		fmt.Sprintf("2.%d.%s.", time.Now().Unix(), strings.Repeat("00", 32)),
		fmt.Sprintf("2.%d.%s.ops", time.Now().Unix(), strings.Repeat("ab", 32)),
		"2.x.y.z", strings.Repeat("2.", 400),
	} {
		if code, _ := withCookie(ts, "GET", "/api/v1/plans", v); code != http.StatusUnauthorized {
			t.Errorf("cookie %.40q: %d, want 401", v, code)
		}
	}
}

// Issue 25 item 13: a long poll started before its token was revoked ends with 401 instead of
// returning the decision afterwards.
func TestRevocationEndsALongPoll(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	bot := newToken(t, ts, "bot", tokens.Ingest)
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"r1",`+checklist[1:], withToken(bot)...); code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, raw)
	}
	type answer struct {
		code int
		body []byte
	}
	done := make(chan answer, 1)
	go func() {
		code, body := ts.api(t, "GET", "/api/v1/approvals/r1?wait=60s", nil, withToken(bot)...)
		done <- answer{code, body}
	}()
	eventually(t, "the poll waiting", func() bool { return ts.srv.gate.Waiting("r1") == 1 })
	revokeElsewhere(t, ts, "bot")
	var got answer
	select {
	case got = <-done:
	case <-time.After(10 * time.Second): // a bound on a hang, not a timing assertion
		ts.api(t, "POST", "/api/v1/approvals/r1/decision", `{"action":"approve"}`)
		got = <-done
		t.Fatalf("the poll went on after the revocation and returned %d %s once decided", got.code, got.body)
	}
	if got.code != http.StatusUnauthorized || !strings.Contains(string(got.body), "revoked") {
		t.Fatalf("the poll after the revocation: %d %s, want 401 saying the token was revoked", got.code, got.body)
	}
}

// Issue 25 item 13: a decide token's socket closes once the token is revoked, instead of
// carrying frames on.
func TestRevocationClosesASocket(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	lead := newToken(t, ts, "lead", tokens.Decide)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?topic=all",
		&websocket.DialOptions{Subprotocols: []string{socketProtocol, socketTokenProtocol + lead}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 20)
	ts.ingest(t, update("s1", planA))
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatalf("no frame before the revocation: %v", err)
	}
	revokeElsewhere(t, ts, "lead")
	// Changes keep coming; the socket must end rather than carry them.
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
				ts.ingest(t, update(fmt.Sprintf("s%d", i+2), planA))
			}
		}
	})
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue // frames sent before the revocation was noticed
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation {
			t.Fatalf("the socket ended with %v, want a close for the revoked token", err)
		}
		return
	}
}

// A token that expires while its long poll waits ends it the same way as a revocation.
func TestExpiryEndsALongPoll(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	_, bot, err := ts.tokens.Create(context.Background(), "brief", tokens.Ingest, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"r1",`+checklist[1:], withToken(bot)...); code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, raw)
	}
	code, raw := ts.api(t, "GET", "/api/v1/approvals/r1?wait=30s", nil, withToken(bot)...)
	if code != http.StatusUnauthorized || !strings.Contains(string(raw), "expired") {
		t.Fatalf("the poll past the token's expiry: %d %s, want 401 saying it expired", code, raw)
	}
}

package web

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/tokens"
)

// TestSlashInIds: a session id with "/" (ACP leaves ids to the agent) is reachable through every
// route that names a session, escaped as links escape it.
func TestSlashInIds(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	sid := "proj/abc"
	if code, res := ts.ingest(t, update(sid, `{"sessionUpdate":"plan","entries":[{"content":"Step","priority":"high","status":"pending"}]}`)); code != 200 || res.Applied != 1 {
		t.Fatalf("ingest: %d %+v", code, res)
	}
	esc := url.PathEscape(sid)
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/sessions/" + esc},
		{"GET", "/api/v1/sessions/" + esc + "/plans/main/history"},
		{"POST", "/api/v1/sessions/" + esc + "/end"},
	} {
		if code, body := ts.api(t, c.method, c.path, nil); code != 200 {
			t.Errorf("%s %s: %d %s", c.method, c.path, code, body)
		}
	}
	for _, path := range []string{"/sessions/" + esc, "/sessions/" + esc + "/plans/main/history", "/embed/sessions/" + esc} {
		if code, _ := ts.page(t, path); code != 200 {
			t.Errorf("GET %s: %d", path, code)
		}
	}
}

// TestForeignHostRefused: a request naming a host plandash was not told about (DNS rebinding)
// is refused before anything else; loopback names, IP literals and --host names pass.
func TestForeignHostRefused(t *testing.T) {
	ts := newTestServer(t, testConfig{Hosts: []string{"plandash.team.internal"}})
	for host, want := range map[string]int{
		"evil.example:7420": http.StatusMisdirectedRequest, "evil.example": http.StatusMisdirectedRequest,
		"localhost:7420": 200, "app.localhost": 200, "127.0.0.1:7420": 200, "[::1]:7420": 200, "10.1.2.3": 200,
		"plandash.team.internal": 200, "PLANDASH.team.internal.:443": 200,
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/plans", nil)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d (%s)", host, resp.StatusCode, want, body)
		}
		if want != 200 && !strings.Contains(string(body), "--host") {
			t.Errorf("Host %s: the refusal does not say how to allow it: %s", host, body)
		}
	}
}

// TestWrongTokensThrottled: wrong tokens are logged and, past a limit, refused for a while with
// 429; a client that sends no token at all is not counted.
func TestWrongTokensThrottled(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	call := func(token string) int {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/plans", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 2 * maxFailures {
		if code := call(""); code != 401 {
			t.Fatalf("no token: %d", code)
		}
	}
	for i := range maxFailures {
		if code := call("wrong"); code != 401 {
			t.Fatalf("wrong token #%d: %d", i+1, code)
		}
	}
	if code := call("wrong"); code != http.StatusTooManyRequests {
		t.Fatalf("after %d wrong tokens: %d, want 429", maxFailures, code)
	}
}

// The attack of issue 25 item 11: a web page's <img> tags send wrong tokens to a page
// (GET /sessions?token=wrongN) from the browser's address, which is the agents' address too.
// The wrong tokens are throttled; the right credentials from the same address never are: the
// admin bearer, a per-agent token posting a hook, the right ?token= and the page's cookie.
func TestWrongTokensNeverLockOutTheRightOnes(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	agent := newToken(t, ts, "agent", tokens.Ingest)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := func(token string) int {
		resp, err := noRedirect.Get(ts.URL + "/sessions?token=" + url.QueryEscape(token))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range maxFailures + 5 {
		page(fmt.Sprintf("wrong%d", i))
	}
	if code := page("wrong-again"); code != http.StatusTooManyRequests {
		t.Fatalf("a wrong token after %d: %d, want 429", maxFailures+5, code)
	}
	if code, raw := ts.api(t, "GET", "/api/v1/approvals/rules", nil, withToken("wrong")...); code != http.StatusTooManyRequests {
		t.Fatalf("a wrong bearer from the throttled address: %d %s, want 429", code, raw)
	}
	if code, raw := ts.api(t, "GET", "/api/v1/plans", nil, "Authorization", "Bearer "+testToken); code != 200 {
		t.Fatalf("the admin bearer from the throttled address: %d %s, want 200", code, raw)
	}
	hook := `{"hook_event_name":"SessionStart","session_id":"h1","cwd":"/tmp"}`
	if code, raw := ts.api(t, "POST", "/api/v1/hooks/claude", hook, withToken(agent)...); code != 200 && code != 202 {
		t.Fatalf("a hook with a per-agent token from the throttled address: %d %s", code, raw)
	}
	if code := page(testToken); code != http.StatusSeeOther {
		t.Fatalf("the right ?token= from the throttled address: %d, want 303", code)
	}
	if code, _ := ts.page(t, "/sessions"); code != 200 {
		t.Fatalf("the page's cookie from the throttled address: %d, want 200", code)
	}
}

// Behind a trusted reverse proxy every request comes from the proxy's address: with
// --client-ip-header the throttle counts each client the proxy names, so one client's wrong
// tokens do not lock the others out. Without it, the header is not believed.
func TestThrottleBehindAProxy(t *testing.T) {
	call := func(ts *testServer, from, token string) int {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/plans", nil)
		// A client may send its own X-Forwarded-For; the proxy appends the address it saw.
		req.Header.Set("X-Forwarded-For", "192.0.2.99, "+from)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	trusting := newTestServer(t, testConfig{ClientIPHeader: "X-Forwarded-For"})
	for range maxFailures + 1 {
		call(trusting, "203.0.113.7", "wrong")
	}
	if code := call(trusting, "203.0.113.7", "wrong"); code != http.StatusTooManyRequests {
		t.Fatalf("the client with wrong tokens: %d, want 429", code)
	}
	if code := call(trusting, "198.51.100.2", "wrong"); code != http.StatusUnauthorized {
		t.Fatalf("another client behind the same proxy: %d, want 401 (not throttled)", code)
	}

	plain := newTestServer(t, testConfig{})
	for range maxFailures + 1 {
		call(plain, "203.0.113.7", "wrong")
	}
	if code := call(plain, "198.51.100.2", "wrong"); code != http.StatusTooManyRequests {
		t.Fatalf("an untrusted header changed who is throttled: %d", code)
	}
}

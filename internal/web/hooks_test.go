package web

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../agents/claude/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClaudeHookCapture: a Claude Code TodoWrite event posted to the hook endpoint becomes the
// session's checklist, shown by the same API and pages as an ACP plan.
func TestClaudeHookCapture(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	if code, body := ts.api(t, "POST", "/api/v1/hooks/claude", fixture(t, "post_todowrite.json")); code != 200 || len(body) != 0 {
		t.Fatalf("capture answered %d %q, want 200 and nothing for the agent", code, body)
	}
	id := url.PathEscape("claude-code:3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c")
	code, raw := ts.api(t, "GET", "/api/v1/sessions/"+id, nil)
	if code != 200 {
		t.Fatalf("session: %d %s", code, raw)
	}
	var d struct {
		Session struct{ Agent, Cwd string }
		Plans   []struct {
			ID      string `json:"id"`
			Entries []struct{ Content, Status string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.Session.Cwd != "/home/dev/shop" || len(d.Plans) != 1 || d.Plans[0].ID != "todos" || len(d.Plans[0].Entries) != 3 || d.Plans[0].Entries[2].Status != "in_progress" {
		t.Fatalf("session %+v", d)
	}
	if code, _ := ts.api(t, "POST", "/api/v1/hooks/claude", "{not json"); code != 400 {
		t.Fatalf("a malformed event answered %d, want 400", code)
	}
}

// TestClaudeHookGate: a plan-mode plan waits in the inbox, and the person's rejection reaches
// the waiting hook as Claude Code's deny with the reason.
func TestClaudeHookGate(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	type answer struct {
		code int
		body []byte
	}
	got := make(chan answer, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // runs before the server closes: a failed test does not leave the hook waiting
	event := fixture(t, "permission_exitplanmode.json")
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/hooks/claude", strings.NewReader(event))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{code: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, body}
	}()
	var pending []struct{ ID string }
	deadline := time.Now().Add(10 * time.Second)
	for len(pending) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the plan never reached the inbox")
		}
		time.Sleep(20 * time.Millisecond)
		_, raw := ts.api(t, "GET", "/api/v1/approvals?status=pending", nil)
		var list struct{ Requests []struct{ ID string } }
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("pending list %s: %v", raw, err)
		}
		pending = list.Requests
	}
	code, raw := ts.api(t, "POST", "/api/v1/approvals/"+url.PathEscape(pending[0].ID)+"/decision", map[string]any{"action": "reject", "comment": "Use the existing limiter package"})
	if code != 200 {
		t.Fatalf("decide: %d %s", code, raw)
	}
	select {
	case a := <-got:
		if a.code != 200 || !strings.Contains(string(a.body), `"behavior":"deny"`) || !strings.Contains(string(a.body), "Use the existing limiter package") {
			t.Fatalf("the hook got %d %s", a.code, a.body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting hook never got the decision")
	}
}

// TestWaitingSessionLinksBothWays: while a Claude Code plan waits at the gate, its session's
// group on the overview and its page say so and link to the request, and the request links back.
func TestWaitingSessionLinksBothWays(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, name := range []string{"post_todowrite.json", "permission_exitplanmode.json"} {
		event := fixture(t, name)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/hooks/claude", strings.NewReader(event))
			req.Header.Set("Authorization", "Bearer "+testToken)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	session := "claude-code:3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c"
	var link string
	deadline := time.Now().Add(10 * time.Second)
	for link == "" {
		if time.Now().After(deadline) {
			t.Fatal("the overview never showed the waiting session")
		}
		time.Sleep(20 * time.Millisecond)
		_, doc := ts.page(t, "/")
		if a := all(doc, `[data-session-id="`+session+`"] [data-testid="waiting-link"]`); len(a) == 1 {
			link = attr(a[0], "href")
		}
	}
	if !strings.HasPrefix(link, "/approvals/") {
		t.Fatalf("the waiting link goes to %q", link)
	}
	_, doc := ts.page(t, "/sessions/"+url.PathEscape(session))
	if a := all(doc, `[data-testid="session-waiting"] [data-testid="waiting-link"]`); len(a) != 1 || attr(a[0], "href") != link {
		t.Fatalf("the session page does not link to the request %s", link)
	}
	_, doc = ts.page(t, link)
	if a := all(doc, `[data-testid="approval-session"]`); len(a) != 1 || attr(a[0], "href") != "/sessions/"+url.PathEscape(session) {
		t.Fatal("the request does not link back to its session")
	}
}

// TestCaptureAcknowledgedBeforeRecorded: while the server runs, a capture event is answered at
// once (202) and recorded right after, in order; shutting down records what was acknowledged.
func TestCaptureAcknowledgedBeforeRecorded(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ts.srv.Serve(ctx, ln) }()
	deadline := time.Now().Add(10 * time.Second)
	for !ts.srv.captures.Running.Load() {
		if time.Now().After(deadline) {
			t.Fatal("Serve never started recording")
		}
		time.Sleep(time.Millisecond)
	}
	post := func(body string) int {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/api/v1/hooks/claude", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(fixture(t, "post_todowrite.json")); code != http.StatusAccepted {
		t.Fatalf("a capture event answered %d, want 202", code)
	}
	if code := post("{not json"); code != http.StatusBadRequest {
		t.Fatalf("garbage answered %d, want 400 (checked before acknowledging)", code)
	}
	cancel() // shutting down records what was acknowledged before Serve returns
	if err := <-served; err != nil && err != http.ErrServerClosed {
		t.Fatal(err)
	}
	d, err := ts.srv.plans.Session(context.Background(), "claude-code:3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c")
	if err != nil || len(d.Plans) != 1 || d.Plans[0].ID != "todos" {
		t.Fatalf("the acknowledged event was not recorded: %+v %v", d.Plans, err)
	}
}

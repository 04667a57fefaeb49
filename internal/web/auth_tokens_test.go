package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/tokens"
)

// newToken makes a per-agent token on ts and returns its secret.
func newToken(t *testing.T, ts *testServer, name string, scope tokens.Scope) string {
	t.Helper()
	_, secret, err := ts.tokens.Create(context.Background(), name, scope, 0)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

func withToken(secret string) []string { return []string{"Authorization", "Bearer " + secret} }

func TestTokenScopes(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ingest := newToken(t, ts, "agent1", tokens.Ingest)
	other := newToken(t, ts, "agent2", tokens.Ingest)
	decide := newToken(t, ts, "lead", tokens.Decide)
	admin := newToken(t, ts, "ops", tokens.Admin)
	revoked := newToken(t, ts, "old", tokens.Decide)
	if err := ts.tokens.Revoke(context.Background(), "old"); err != nil {
		t.Fatal(err)
	}

	// agent1 submits a request; one more is the server's own.
	code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"mine",`+checklist[1:], withToken(ingest)...)
	if code != http.StatusCreated {
		t.Fatalf("an ingest token submits: %d %s", code, raw)
	}
	ts.create(t, `{"id":"theirs",`+checklist[1:])
	// The request's page names the token it came with; the server's own request names none.
	if page := ts.get(t, "/approvals/mine"); !strings.Contains(page, `data-testid="approval-token">agent1</code>`) {
		t.Fatalf("the page of a request sent with a token does not name it:\n%s", page)
	}
	if page := ts.get(t, "/approvals/theirs"); strings.Contains(page, "approval-token") {
		t.Fatal("the page of the server's own request names a token")
	}
	// Another token sending the same submission does not get the request (nor its decision).
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"mine",`+checklist[1:], withToken(other)...); code != http.StatusConflict {
		t.Fatalf("another token's same submission: %d %s, want 409", code, raw)
	}
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"mine",`+checklist[1:], withToken(ingest)...); code != http.StatusOK {
		t.Fatalf("the same submission again by its token: %d %s, want 200", code, raw)
	}

	for _, tc := range []struct {
		name         string
		secret       string
		method, path string
		body         string
		want         int
		scope        tokens.Scope // the required scope a 403 names
		detail       string
	}{
		{"ingest posts ACP", ingest, "POST", "/api/v1/ingest", update("s-tok", planA), 200, "", ""},
		{"ingest posts a hook", ingest, "POST", "/api/v1/hooks/claude", `{"hook_event_name":"SessionStart","session_id":"h1","cwd":"/tmp"}`, 0, "", ""},
		{"ingest waits for its own request", ingest, "GET", "/api/v1/approvals/mine?wait=0s", "", 200, "", ""},
		{"ingest may not read another's request", other, "GET", "/api/v1/approvals/mine?wait=0s", "", 403, tokens.Decide, "did not submit"},
		{"ingest may not read the server's request", ingest, "GET", "/api/v1/approvals/theirs?wait=0s", "", 403, tokens.Decide, "did not submit"},
		{"ingest may not probe for requests", ingest, "GET", "/api/v1/approvals/nobodys?wait=0s", "", 403, tokens.Decide, "did not submit"},
		{"ingest may not decide", ingest, "POST", "/api/v1/approvals/mine/decision", `{"action":"approve"}`, 403, tokens.Decide, "agent1 has scope ingest"},
		{"ingest may not read the dashboard", ingest, "GET", "/api/v1/plans", "", 403, tokens.Decide, ""},
		{"ingest may not answer permissions", ingest, "POST", "/api/v1/proxy/permissions/answer", `{}`, 403, tokens.Decide, ""},
		{"ingest writes shared plans", ingest, "GET", "/api/v1/shared-plans", "", 200, "", ""},
		{"decide reads sessions", decide, "GET", "/api/v1/sessions/s-tok", "", 200, "", ""},
		{"decide reads any request", decide, "GET", "/api/v1/approvals/theirs?wait=0s", "", 200, "", ""},
		{"decide may not trade for the browser cookie", decide, "POST", "/api/v1/embed/login", "", 403, tokens.Admin, ""},
		{"admin token may", admin, "GET", "/api/v1/approvals/rules", "", 200, "", ""},
		{"revoked", revoked, "GET", "/api/v1/plans", "", 401, "", "revoked"},
		{"unknown", tokens.Prefix + strings.Repeat("A", 43), "GET", "/api/v1/plans", "", 401, "", "unknown token"},
		{"pages are the browser's", admin, "GET", "/approvals", "", 401, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			code, raw := ts.api(t, tc.method, tc.path, body, withToken(tc.secret)...)
			if tc.want == 0 { // a hook: 200 or 202, whichever way it was recorded
				if code != 200 && code != 202 {
					t.Fatalf("%d %s", code, raw)
				}
				return
			}
			if code != tc.want {
				t.Fatalf("%s %s = %d %s, want %d", tc.method, tc.path, code, raw, tc.want)
			}
			if tc.want == 403 {
				var p struct {
					Problem
					RequiredScope tokens.Scope `json:"requiredScope"`
				}
				if err := json.Unmarshal(raw, &p); err != nil || p.RequiredScope != tc.scope || p.Code != "insufficient_scope" ||
					!strings.Contains(p.Detail, "scope "+string(tc.scope)) {
					t.Fatalf("403 body %s: want a problem naming scope %s", raw, tc.scope)
				}
			}
			if tc.detail != "" && !strings.Contains(string(raw), tc.detail) {
				t.Fatalf("answer %s does not say %q", raw, tc.detail)
			}
		})
	}
}

func TestTokensRecordedAndRevoked(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	agent := newToken(t, ts, "ci-runner", tokens.Ingest)
	lead := newToken(t, ts, "lead-bot", tokens.Decide)

	if code, raw := ts.api(t, "POST", "/api/v1/ingest", update("s1", planA), withToken(agent)...); code != 200 {
		t.Fatalf("ingest: %d %s", code, raw)
	}
	code, raw := ts.api(t, "GET", "/api/v1/sessions/s1", nil)
	if code != 200 || !strings.Contains(string(raw), `"source": "token:ci-runner"`) {
		t.Fatalf("the session does not record the token: %d %s", code, raw)
	}
	if code, doc := ts.page(t, "/sessions/s1"); code != 200 || len(all(doc, `[data-testid=session-source]`)) != 1 ||
		text(all(doc, `[data-testid=session-source]`)[0]) != "token:ci-runner" {
		t.Fatalf("the session page does not show the token (%d)", code)
	}

	if code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"r0",`+checklist[1:], withToken(agent)...); code != 201 {
		t.Fatalf("submit: %d %s", code, raw)
	}
	if code, raw := ts.api(t, "PUT", "/api/v1/shared-plans/release", `{"content":"# Release"}`, withToken(agent)...); code != 201 {
		t.Fatalf("shared plan write: %d %s", code, raw)
	}
	if code, raw := ts.api(t, "GET", "/api/v1/shared-plans/release/history", nil); code != 200 || !strings.Contains(string(raw), `"source": "token:ci-runner"`) {
		t.Fatalf("the shared plan's history does not name the token: %d %s", code, raw)
	}
	ts.create(t, `{"id":"r1",`+checklist[1:])
	code, raw = ts.api(t, "POST", "/api/v1/approvals/r1/decision", `{"action":"approve"}`, withToken(lead)...)
	if code != 200 {
		t.Fatalf("decide: %d %s", code, raw)
	}
	if d := decodeAs[apiApproval](t, raw).Decision; d == nil || d.By != "token:lead-bot" {
		t.Fatalf("decision = %+v, want it by token:lead-bot", d)
	}
	code, raw = ts.api(t, "GET", "/api/v1/approvals/audit", nil)
	if code != 200 || !strings.Contains(string(raw), `"by": "token:lead-bot"`) || !strings.Contains(string(raw), `"by": "token:ci-runner"`) {
		t.Fatalf("the audit trail does not name the tokens that asked and decided: %d %s", code, raw)
	}
	// A person named by the trusted header wins over the token.
	ts2 := newTestServer(t, testConfig{User: "ann", UserHeader: "X-User"})
	lead2 := newToken(t, ts2, "lead-bot", tokens.Decide)
	ts2.create(t, `{"id":"r2",`+checklist[1:])
	_, raw = ts2.api(t, "POST", "/api/v1/approvals/r2/decision", `{"action":"reject","comment":"no"}`, append(withToken(lead2), "X-User", "bob")...)
	if d := decodeAs[apiApproval](t, raw).Decision; d == nil || d.By != "bob" {
		t.Fatalf("decision = %+v, want it by bob", d)
	}

	// Revoked: refused from the next request on.
	if err := ts.tokens.Revoke(context.Background(), "ci-runner"); err != nil {
		t.Fatal(err)
	}
	if code, raw := ts.api(t, "POST", "/api/v1/ingest", update("s1", planA), withToken(agent)...); code != 401 || !strings.Contains(string(raw), "revoked") {
		t.Fatalf("after revoke: %d %s", code, raw)
	}
}

// TestEveryAPIRouteHasAScope reads the route table: every API route is open to some per-agent
// scope on purpose, and the ones left to admin are exactly those that must be. A route added to
// routes.go without a decision here fails this test instead of silently needing admin.
func TestEveryAPIRouteHasAScope(t *testing.T) {
	adminOnly := map[string]bool{
		"POST /api/v1/embed/login": true, // trades a token for the browser's cookie
		"GET /api/v1/tokens":       true, "POST /api/v1/tokens": true, "DELETE /api/v1/tokens/{name}": true,
		// Notification targets hold secrets and name URLs the server fetches: admins only.
		"GET /api/v1/notify/targets": true, "POST /api/v1/notify/targets": true, "DELETE /api/v1/notify/targets/{id}": true,
		"GET /api/v1/notify/targets/{id}/deliveries": true, "GET /api/v1/notify/vapid": true, "POST /api/v1/notify/push": true,
	}
	table, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	routes := apiRoute.FindAllStringSubmatch(string(table), -1)
	if len(routes) < 30 {
		t.Fatalf("found %d API routes in routes.go; the pattern no longer reads the table", len(routes))
	}
	for _, m := range routes {
		key := strings.ToUpper(m[1]) + " " + m[2]
		n := routeNeed(strings.ToUpper(m[1]), m[2])
		if got := n.scope == tokens.Admin; got != adminOnly[key] {
			t.Errorf("%s needs %s: decide in routeNeed which scope may call it (admin-only routes: %v)", key, n.scope, adminOnly)
		}
	}
	if n := routeNeed("GET", "/mcp"); n.scope != tokens.Ingest {
		t.Errorf("/mcp needs %s, want ingest (an agent's MCP tools)", n.scope)
	}
}

// Issue 25 item 17: a request belongs to the token that submitted it, by identity, not by the
// name in its label. Once "a" is revoked and a new token takes the name "a", the new one cannot
// read the old one's request, wait on it, re-submit it, nor revise it (by naming it or by
// following it in the session).
func TestOwnershipByTokenIdentity(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	old := newToken(t, ts, "a", tokens.Ingest)
	body := `{"id":"r-old",` + checklist[1:]
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", body, withToken(old)...); code != http.StatusCreated {
		t.Fatalf("the old token submits: %d %s", code, raw)
	}
	if code, raw := ts.api(t, "GET", "/api/v1/approvals/r-old?wait=0s", nil, withToken(old)...); code != 200 {
		t.Fatalf("the old token reads its own request: %d %s", code, raw)
	}
	if code, raw := ts.api(t, "POST", "/api/v1/approvals/r-old/decision", `{"action":"request_changes","comment":"Nearly."}`); code != 200 {
		t.Fatalf("request changes: %d %s", code, raw)
	}
	if err := ts.tokens.Revoke(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	fresh := newToken(t, ts, "a", tokens.Ingest)

	if code, raw := ts.api(t, "GET", "/api/v1/approvals/r-old?wait=0s", nil, withToken(fresh)...); code != http.StatusForbidden {
		t.Fatalf("the new token named a reads the old one's request: %d %s, want 403", code, raw)
	}
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", body, withToken(fresh)...); code != http.StatusConflict {
		t.Fatalf("the new token re-submits the old one's request: %d %s, want 409", code, raw)
	}
	revise := `{"id":"r-rev","revises":"r-old",` + checklist[1:]
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", revise, withToken(fresh)...); code != http.StatusBadRequest || !strings.Contains(string(raw), "r-old") {
		t.Fatalf("the new token revises the old one's request: %d %s, want 400", code, raw)
	}
	// Same session, no revises: the new token's request does not take up the old one's review.
	code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"r-new",`+checklist[1:], withToken(fresh)...)
	if code != http.StatusCreated {
		t.Fatalf("the new token submits: %d %s", code, raw)
	}
	var got struct {
		Revises, SubmittedBy, SubmitterID string
	}
	if err := json.Unmarshal(raw, &got); err != nil || got.Revises != "" || got.SubmittedBy != "token:a" || got.SubmitterID != "" {
		t.Fatalf("the new token's request %s: want it to revise nothing, name token:a and not show the identity", raw)
	}
	if code, raw := ts.api(t, "GET", "/api/v1/approvals/r-new?wait=0s", nil, withToken(fresh)...); code != 200 {
		t.Fatalf("the new token reads its own request: %d %s", code, raw)
	}
}

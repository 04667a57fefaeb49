package web

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/approval"
	"golang.org/x/net/html"
)

// overviewIDs is the ids of the sessions GET /api/v1/plans lists.
func overviewIDs(t *testing.T, ts *testServer) []string {
	t.Helper()
	code, raw := ts.api(t, "GET", "/api/v1/plans", nil)
	if code != 200 {
		t.Fatalf("overview: %d %s", code, raw)
	}
	ov := decodeAs[struct {
		Sessions []struct {
			Session struct{ ID string }
		}
	}](t, raw)
	var ids []string
	for _, g := range ov.Sessions {
		ids = append(ids, g.Session.ID)
	}
	return ids
}

func TestEndSessionAPI(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.ingest(t, update("s1", planA)+"\n"+update("s2", planA))
	if ids := overviewIDs(t, ts); len(ids) != 2 {
		t.Fatalf("before: overview lists %v, want s1 and s2", ids)
	}

	code, raw := ts.api(t, "POST", "/api/v1/sessions/s1/end", nil)
	if s := decodeAs[struct {
		ID    string
		Ended bool
	}](t, raw); code != 200 || s.ID != "s1" || !s.Ended {
		t.Fatalf("end: %d %s", code, raw)
	}
	if ids := overviewIDs(t, ts); len(ids) != 1 || ids[0] != "s2" {
		t.Fatalf("after ending s1 the overview lists %v, want only s2", ids)
	}
	// Its history stays: the session and its plan can still be read.
	code, raw = ts.api(t, "GET", "/api/v1/sessions/s1", nil)
	if got := decodeAs[struct {
		Session struct{ Ended bool }
		Plans   []struct{ ID string }
	}](t, raw); code != 200 || !got.Session.Ended || len(got.Plans) != 1 || got.Plans[0].ID != "main" {
		t.Fatalf("the ended session: %d %s", code, raw)
	}

	for _, tt := range []struct {
		name, path string
		hdr        []string
		status     int
	}{
		{"again", "/api/v1/sessions/s1/end", nil, 200},
		{"unknown session", "/api/v1/sessions/nope/end", nil, 404},
		{"cross-site", "/api/v1/sessions/s2/end", []string{"Sec-Fetch-Site", "cross-site"}, 403},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, raw := ts.api(t, "POST", tt.path, nil, tt.hdr...); code != tt.status {
				t.Fatalf("%s: %d %s, want %d", tt.path, code, raw, tt.status)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		resp, err := http.Post(ts.URL+"/api/v1/sessions/s2/end", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("end without the token: %s", resp.Status)
		}
	})
	// Neither refused request ended s2.
	if ids := overviewIDs(t, ts); len(ids) != 1 || ids[0] != "s2" {
		t.Fatalf("after the refused requests the overview lists %v, want s2", ids)
	}
}

func TestHistoryAPI(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	entries := func(items ...string) string {
		var parts []string
		for _, it := range items {
			parts = append(parts, `{"content":"`+it+`","priority":"medium","status":"pending"}`)
		}
		return `{"sessionUpdate":"plan","entries":[` + strings.Join(parts, ",") + `]}`
	}
	ts.ingest(t, update("s1", entries("a"))+"\n"+update("s1", entries("a", "b"))+"\n"+update("s1", entries("b", "c")))

	type history struct {
		Revisions []struct{ Revision int }
		From, To  int
		Diff      []struct{ Op, Text string }
	}
	ops := func(h history) (added, removed int) {
		for _, l := range h.Diff {
			switch l.Op {
			case "+":
				added++
			case "-":
				removed++
			}
		}
		return
	}
	for _, tt := range []struct {
		name, query            string
		from, to, add, removed int
	}{
		{"the last change by default", "", 2, 3, 1, 1},
		{"a range", "?from=1&to=3", 1, 3, 2, 1},
		{"one revision against itself", "?from=2&to=2", 2, 2, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := ts.api(t, "GET", "/api/v1/sessions/s1/plans/main/history"+tt.query, nil)
			if code != 200 {
				t.Fatalf("history: %d %s", code, raw)
			}
			h := decodeAs[history](t, raw)
			if len(h.Revisions) != 3 || h.From != tt.from || h.To != tt.to {
				t.Fatalf("history has %d revisions, from %d to %d; want 3, %d to %d: %s", len(h.Revisions), h.From, h.To, tt.from, tt.to, raw)
			}
			if a, r := ops(h); a != tt.add || r != tt.removed {
				t.Fatalf("diff +%d -%d, want +%d -%d: %s", a, r, tt.add, tt.removed, raw)
			}
		})
	}
	for _, tt := range []struct {
		name, path string
		status     int
	}{
		{"a revision that does not exist", "/api/v1/sessions/s1/plans/main/history?from=9", 400},
		{"not a number", "/api/v1/sessions/s1/plans/main/history?to=x", 400},
		{"unknown session", "/api/v1/sessions/nope/plans/main/history", 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, raw := ts.api(t, "GET", tt.path, nil); code != tt.status {
				t.Fatalf("%s: %d %s, want %d", tt.path, code, raw, tt.status)
			}
		})
	}
}

func TestApprovalRulesListAndBadInput(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	for _, tt := range []struct {
		name, body string
		status     int
	}{
		{"matches everything", `{}`, 400},
		{"only a note", `{"note":"trust me"}`, 400},
		{"an unknown plan type", `{"kind":"poem"}`, 400},
		{"not JSON", `{`, 400},
		{"by agent", `{"agent":"linter","note":"formatting only"}`, 201},
		{"by session and plan type", `{"sessionId":"s1","kind":"markdown"}`, 201},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, raw := ts.api(t, "POST", "/api/v1/approvals/rules", tt.body); code != tt.status {
				t.Fatalf("add %s: %d %s, want %d", tt.body, code, raw, tt.status)
			}
		})
	}
	list := func(query string) []approval.Rule {
		t.Helper()
		code, raw := ts.api(t, "GET", "/api/v1/approvals/rules"+query, nil)
		if code != 200 {
			t.Fatalf("rules: %d %s", code, raw)
		}
		return decodeAs[struct{ Rules []approval.Rule }](t, raw).Rules
	}
	rules := list("")
	if len(rules) != 2 {
		t.Fatalf("%d active rules, want 2: %+v", len(rules), rules)
	}
	for _, r := range rules {
		if r.CreatedBy != "ann" || r.ID == "" || r.Created.IsZero() {
			t.Fatalf("rule %+v lacks who made it and when", r)
		}
	}
	// The session rule approves that session's markdown plans, and nothing else.
	md := ts.create(t, `{"title":"notes","sessionId":"s1","plan":{"type":"markdown","markdown":"# Notes"}}`)
	items := ts.create(t, `{"title":"steps","sessionId":"s1","plan":{"type":"items","entries":[{"content":"Step"}]}}`)
	if md.Status != approval.Approved || items.Status != approval.Pending {
		t.Fatalf("under the session rule: markdown %s, items %s; want approved, pending", md.Status, items.Status)
	}

	var revoke string
	for _, r := range rules {
		if r.Agent == "linter" {
			revoke = r.ID
		}
	}
	if code, raw := ts.api(t, "DELETE", "/api/v1/approvals/rules/"+revoke, nil); code != 200 {
		t.Fatalf("revoke: %d %s", code, raw)
	}
	if code, _ := ts.api(t, "DELETE", "/api/v1/approvals/rules/rule-nope", nil); code != 404 {
		t.Fatalf("revoking an unknown rule: %d, want 404", code)
	}
	if n := len(list("")); n != 1 {
		t.Fatalf("%d active rules after revoking one, want 1", n)
	}
	all := list("?revoked=1")
	var revoked *approval.Rule
	for i := range all {
		if all[i].ID == revoke {
			revoked = &all[i]
		}
	}
	if len(all) != 2 || revoked == nil || revoked.Active() || revoked.RevokedBy != "ann" {
		t.Fatalf("with revoked rules: %+v", all)
	}
	// A revoked rule no longer decides.
	if r := ts.create(t, `{"title":"lint","agent":"linter","plan":{"entries":[{"content":"gofmt"}]}}`); r.Status != approval.Pending {
		t.Fatalf("after revoking, the linter's request is %s, want pending", r.Status)
	}
}

// embedPage fetches an embed view with the token header (as the page does once it has the
// token) and parses it.
func embedPage(t *testing.T, ts *testServer, path string) (int, http.Header, *html.Node) {
	t.Helper()
	req, err := http.NewRequest("GET", ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, doc
}

func TestEmbedSessionPage(t *testing.T) {
	ts := newTestServer(t, testConfig{FrameAncestors: []string{"'self'", "vscode-webview:"}})
	ts.ingest(t, update("s1", planA)+"\n"+
		update("s1", `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read main.go","kind":"read","status":"in_progress"}`)+"\n"+
		update("s2", planA))

	code, hdr, doc := embedPage(t, ts, "/embed/sessions/s1")
	if code != 200 {
		t.Fatalf("embed session: %d", code)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self' vscode-webview:") {
		t.Errorf("CSP %q does not let the configured hosts frame the page", csp)
	}
	body := all(doc, `body.embed`)
	if len(body) != 1 {
		t.Fatalf("%d embed bodies, want 1", len(body))
	}
	if topic, origins := attr(body[0], "data-topic"), attr(body[0], "data-embed-origins"); topic != "session:s1" || origins != "vscode-webview:" {
		t.Fatalf("the embed page's topic %q and origins %q, want session:s1 and vscode-webview:", topic, origins)
	}
	if n := len(all(doc, `[data-testid="session-plans"] [data-testid="plan-card"][data-plan-id="main"]`)); n != 1 {
		t.Errorf("the session's plan is shown %d times, want once", n)
	}
	if n := len(all(doc, `[data-testid="tool-call"][data-status="in_progress"]`)); n != 1 {
		t.Errorf("%d running tool calls shown, want 1", n)
	}
	// Only this session: the other one's plan is not on the page.
	if n := len(all(doc, `[data-session-id="s2"]`)); n != 0 {
		t.Errorf("the other session appears %d times", n)
	}
	// The panel keeps its links inside the embed views.
	for _, a := range all(doc, `[data-testid="nav-approvals"]`) {
		if href := attr(a, "href"); !strings.HasPrefix(href, "/embed/") {
			t.Errorf("the approvals link leaves the panel: %s", href)
		}
	}

	if code, _, _ := embedPage(t, ts, "/embed/sessions/nope"); code != 404 {
		t.Errorf("an unknown session's embed view: %d, want 404", code)
	}
	// Without a token the view is the boot page that trades the fragment's token for a cookie.
	resp, err := http.Get(ts.URL + "/embed/sessions/s1")
	if err != nil {
		t.Fatal(err)
	}
	doc, err = html.Parse(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(all(doc, `[data-testid="embed-boot"]`)) != 1 || len(all(doc, `[data-testid="plan-card"]`)) != 0 {
		t.Fatalf("without a token the embed view is not the boot page (status %s)", resp.Status)
	}
}

// TestSessionsPageAndProbes: the list of recent sessions, and the probes a load balancer asks.
func TestSessionsPageAndProbes(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.ingest(t, update("listed", `{"sessionUpdate":"plan","entries":[{"content":"x","priority":"low","status":"pending"}]}`))
	code, doc := ts.page(t, "/sessions")
	if code != 200 {
		t.Fatalf("/sessions: %d", code)
	}
	found := false
	for _, a := range all(doc, `a[href]`) {
		if attr(a, "href") == "/sessions/listed" {
			found = true
		}
	}
	if !found {
		t.Fatal("/sessions does not link the session")
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
	if code, _ := ts.api(t, "GET", "/no/such/route", nil); code != 404 {
		t.Errorf("an unknown route: %d", code)
	}
}

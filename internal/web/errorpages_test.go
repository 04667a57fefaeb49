package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/errs"
	"golang.org/x/net/html"
)

// send makes one request without following redirects and without the test client's cookie
// (unless cookie), and parses an HTML answer.
func send(t *testing.T, ts *testServer, method, path string, hdr map[string]string, body string, cookie bool) (*http.Response, *html.Node, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if cookie {
		c.Jar = ts.client.Jar
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var doc *html.Node
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/html" {
		if doc, err = html.Parse(strings.NewReader(string(b))); err != nil {
			t.Fatal(err)
		}
	}
	return resp, doc, b
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// A browser that ends on an error gets a page in the site's frame with the status, a message
// and ways back; the API, and anything that did not ask for HTML, keeps problem+json.
func TestErrorsArePagesForBrowsers(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.page(t, "/") // signs the test client in
	browser := map[string]string{"Accept": browserAccept}
	tests := []struct {
		name, method, path string
		hdr                map[string]string
		status             int
		page               bool
	}{
		{"unknown page", "GET", "/no/such/page", browser, 404, true},
		{"unknown session", "GET", "/sessions/nope", browser, 404, true},
		{"history of an unknown session", "GET", "/sessions/s1/plans/main/history?from=9", browser, 404, true},
		{"wrong method", "PUT", "/approvals", browser, 405, true},
		{"cross-site form", "POST", "/approvals/rules", map[string]string{"Accept": browserAccept, "Sec-Fetch-Site": "cross-site"}, 403, true},
		{"unknown page, script", "GET", "/no/such/page", nil, 404, false},
		{"unknown page, json", "GET", "/no/such/page", map[string]string{"Accept": "application/json"}, 404, false},
		{"api from a browser", "GET", "/api/v1/sessions/nope", browser, 404, false},
		{"unknown api route from a browser", "GET", "/api/v1/nope", browser, 404, false},
		{"cross-site api", "POST", "/api/v1/approvals", map[string]string{"Accept": browserAccept, "Sec-Fetch-Site": "cross-site"}, 403, false},
		{"missing static file", "GET", "/static/nope.css", browser, 404, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, doc, body := send(t, ts, tc.method, tc.path, tc.hdr, "", true)
			if resp.StatusCode != tc.status {
				t.Fatalf("%s %s: %d, want %d: %s", tc.method, tc.path, resp.StatusCode, tc.status, body)
			}
			if !tc.page {
				var p Problem
				if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
					t.Fatalf("Content-Type %q, want application/problem+json", ct)
				}
				if err := json.Unmarshal(body, &p); err != nil || p.Status != tc.status || p.Detail == "" {
					t.Fatalf("problem %+v (%v), want status %d with a detail", p, err, tc.status)
				}
				return
			}
			if doc == nil {
				t.Fatalf("answer is %q, want a page: %s", resp.Header.Get("Content-Type"), body)
			}
			box := all(doc, `[data-testid="error"]`)
			if len(box) != 1 || attr(box[0], "data-status") != strconv.Itoa(tc.status) {
				t.Fatalf("want one error box with data-status %d, got %d boxes", tc.status, len(box))
			}
			if msg := all(doc, `[data-testid="error-message"]`); len(msg) != 1 || strings.TrimSpace(text(msg[0])) == "" {
				t.Error("the error page has no message")
			}
			if home := all(doc, `[data-testid="error-home"]`); len(home) != 1 || attr(home[0], "href") != "/" {
				t.Error("the error page has no way back to the overview")
			}
			if len(all(doc, `header.top nav a`)) < 3 {
				t.Error("the error page lacks the site's navigation")
			}
		})
	}
}

// The one error mapping draws every kind as a page for a browser, with its own headline; an
// internal error shows no internals, and a panic is answered, not dropped.
func TestErrorMappingDrawsEveryKind(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	tests := []struct {
		err    error
		status int
		hide   string // text the page must not show
	}{
		{errs.New(errs.Invalid, "entry 3 has no text"), 400, ""},
		{errs.New(errs.Forbidden, "outside the allowed roots"), 403, ""},
		{errs.New(errs.NotFound, "no request r9"), 404, ""},
		{errs.New(errs.Conflict, "ann decided first"), 409, ""},
		{io.ErrUnexpectedEOF, 500, "unexpected EOF"},
	}
	headlines := map[string]bool{}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			req := httptest.NewRequest("GET", "/approvals/r9", nil)
			req.Header.Set("Accept", browserAccept)
			rec := httptest.NewRecorder()
			writeProblem(rec, req, log, tc.err)
			if rec.Code != tc.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
				t.Fatalf("%d %q, want %d text/html", rec.Code, rec.Header().Get("Content-Type"), tc.status)
			}
			doc, err := html.Parse(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			title := all(doc, `[data-testid="error-title"]`)
			if len(title) != 1 || headlines[text(title[0])] {
				t.Errorf("%d: headline %v, want one of its own", tc.status, title)
			} else {
				headlines[text(title[0])] = true
			}
			page := text(doc)
			if tc.hide != "" && strings.Contains(page, tc.hide) {
				t.Errorf("the page shows the internal error %q", tc.hide)
			}
			if tc.hide == "" && !strings.Contains(page, tc.err.Error()) {
				t.Errorf("the page does not say %q", tc.err.Error())
			}
		})
	}
	h := recoverPanics(log)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept", browserAccept)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `data-testid="error"`) || strings.Contains(rec.Body.String(), "boom") {
		t.Errorf("a panic answered %d: %.200s", rec.Code, rec.Body.String())
	}
}

// The locked page explains how to get in and takes the token in a form. The right token sets
// the cookie and returns the browser to the page it asked for; a wrong one does not, counts as
// a failure and is throttled like ?token= (the right one never is); another site cannot post
// the form.
func TestLockedPageTakesTheToken(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	browser := map[string]string{"Accept": browserAccept}
	resp, doc, _ := send(t, ts, "GET", "/approvals?state=all", browser, "", false)
	if resp.StatusCode != http.StatusUnauthorized || doc == nil {
		t.Fatalf("GET without the token: %d", resp.StatusCode)
	}
	forms := all(doc, `form[data-testid="token-form"]`)
	if len(forms) != 1 || attr(forms[0], "method") != "post" || len(all(forms[0], `input[name="token"][type="password"]`)) != 1 {
		t.Fatal("the locked page has no form to paste the token into")
	}
	if !strings.Contains(text(one(t, doc, `[data-testid="locked"]`)), "plandash url") {
		t.Error("the locked page does not say how to get the address")
	}
	action, err := url.Parse(attr(forms[0], "action"))
	if err != nil {
		t.Fatal(err)
	}
	post := func(token string, extra map[string]string) (*http.Response, *html.Node) {
		hdr := map[string]string{"Accept": browserAccept, "Content-Type": "application/x-www-form-urlencoded"}
		for k, v := range extra {
			hdr[k] = v
		}
		target := (&url.URL{Path: "/approvals/r1"}).ResolveReference(action)
		resp, doc, _ := send(t, ts, "POST", target.String(), hdr, url.Values{"token": {token}}.Encode(), false)
		return resp, doc
	}
	if resp, _ := post(testToken, map[string]string{"Sec-Fetch-Site": "cross-site"}); resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Errorf("a cross-site form: %d with %d cookies, want 403 and none", resp.StatusCode, len(resp.Cookies()))
	}
	resp, doc = post("wrong", nil)
	if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 || !strings.Contains(text(one(t, doc, `[data-testid="locked-why"]`)), "not this server's token") {
		t.Errorf("a wrong token: %d with %d cookies", resp.StatusCode, len(resp.Cookies()))
	}
	resp, _ = post(testToken, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/approvals/r1" {
		t.Fatalf("the right token: %d to %q, want 303 to /approvals/r1", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("the right token set no strict, HttpOnly cookie: %+v", cookie)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/approvals", nil)
	req.AddCookie(cookie)
	if got, err := http.DefaultClient.Do(req); err != nil || got.StatusCode != 200 {
		t.Fatalf("the page with the new cookie: %v %v", got, err)
	} else {
		got.Body.Close()
	}
	// One failure is already counted; the rest reach the limit, and then wrong tokens wait
	// while the right one still signs in.
	for range maxFailures - 1 {
		post("wrong", nil)
	}
	if resp, _ := post("wrong", nil); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || len(resp.Cookies()) != 0 {
		t.Errorf("after %d failures: %d, Retry-After %q, want 429 and no cookie", maxFailures, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp, _ := post(testToken, nil); resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) == 0 {
		t.Errorf("the right token after %d failures: %d, want 303 with the cookie", maxFailures, resp.StatusCode)
	}
}

// Signing in never sends the browser to another site.
func TestLoginTargetStaysHere(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/approvals/r1?plandash-login", "/approvals/r1"},
		{"/?plandash-login&x=1", "/?x=1"},
		{"//evil.example/?plandash-login", "/"},
		{"/\\evil.example/?plandash-login", "/%5Cevil.example/"}, // escaped: a path here, not a host
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := loginTarget(u); got != tc.want {
			t.Errorf("loginTarget(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

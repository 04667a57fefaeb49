package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/tokens"
)

func TestTokensAPI(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ops := newToken(t, ts, "ops", tokens.Admin)
	lead := newToken(t, ts, "lead", tokens.Decide)

	code, raw := ts.api(t, "POST", "/api/v1/tokens", `{"name":"laptop","scope":"ingest","expires":"720h"}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, raw)
	}
	created := decodeAs[struct {
		tokens.Token
		Secret string `json:"secret"`
	}](t, raw)
	if created.Name != "laptop" || created.Scope != tokens.Ingest || created.Expires.Sub(created.Created).Hours() != 720 || !tokens.LooksLikeSecret(created.Secret) {
		t.Fatalf("created = %s", raw)
	}
	if code, raw := ts.api(t, "POST", "/api/v1/ingest", update("s1", planA), withToken(created.Secret)...); code != 200 {
		t.Fatalf("the new token ingests: %d %s", code, raw)
	}

	for _, tc := range []struct {
		name, secret, method, path, body string
		want                             int
		says                             string
	}{
		{"an admin token makes one", ops, "POST", "/api/v1/tokens", `{"name":"ci"}`, 201, `"scope": "ingest"`},
		{"a decide token may not", lead, "POST", "/api/v1/tokens", `{"name":"mine","scope":"admin"}`, 403, `"requiredScope": "admin"`},
		{"nor list", lead, "GET", "/api/v1/tokens", "", 403, "scope admin"},
		{"nor revoke", lead, "DELETE", "/api/v1/tokens/ops", "", 403, "scope admin"},
		{"a taken name", testToken, "POST", "/api/v1/tokens", `{"name":"laptop"}`, 409, "exists"},
		{"a bad name", testToken, "POST", "/api/v1/tokens", `{"name":"<b>"}`, 400, "letters, digits"},
		{"a bad scope", testToken, "POST", "/api/v1/tokens", `{"name":"x","scope":"root"}`, 400, "ingest, decide or admin"},
		{"a bad expiry", testToken, "POST", "/api/v1/tokens", `{"name":"x","expires":"-1h"}`, 400, "positive duration"},
		{"an unknown field", testToken, "POST", "/api/v1/tokens", `{"name":"x","secret":"pdt_mine"}`, 400, ""},
		{"revoke an unknown one", testToken, "DELETE", "/api/v1/tokens/ghost", "", 404, "no token named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			code, raw := ts.api(t, tc.method, tc.path, body, withToken(tc.secret)...)
			if code != tc.want || !strings.Contains(string(raw), tc.says) {
				t.Fatalf("%s %s = %d %s; want %d saying %q", tc.method, tc.path, code, raw, tc.want, tc.says)
			}
		})
	}

	code, raw = ts.api(t, "GET", "/api/v1/tokens", nil)
	if code != 200 || !strings.Contains(string(raw), `"name": "laptop"`) || strings.Contains(string(raw), created.Secret[4:]) ||
		strings.Contains(string(raw), tokens.HashSecret(created.Secret)) {
		t.Fatalf("list: %d %s; want the tokens without secrets or hashes", code, raw)
	}
	if code, raw := ts.api(t, "DELETE", "/api/v1/tokens/laptop", nil); code != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", code, raw)
	}
	if code, raw := ts.api(t, "POST", "/api/v1/ingest", update("s1", planA), withToken(created.Secret)...); code != 401 || !strings.Contains(string(raw), "revoked") {
		t.Fatalf("the revoked token: %d %s", code, raw)
	}
}

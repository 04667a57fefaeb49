package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/tokens"
)

// TestProxyStreamBelongsToItsToken is issue 25's item 14 as an attacker runs it: two ingest
// tokens, the second re-offering the first's permission request under the same stream and id
// with harmless-looking params, ending it, and polling for the person's answer. Each is 403,
// the inbox keeps showing what the first offered, and the answer reaches the first alone. A new
// token given the first's name after its revocation does not inherit the stream either.
func TestProxyStreamBelongsToItsToken(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	owner := newToken(t, ts, "agent1", tokens.Ingest)
	other := newToken(t, ts, "agent2", tokens.Ingest)
	offer := func(title string) string {
		return `{"stream":"st","id":7,"sessionId":"s1","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"` + title +
			`"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`
	}
	const resolved = `{"stream":"st","id":7,"by":"ide","outcome":{"outcome":"cancelled"}}`
	const poll = "/api/v1/proxy/answers?stream=st&wait=10ms"
	if code, raw := ts.api(t, "POST", "/api/v1/proxy/permissions", offer("rm -rf /"), withToken(owner)...); code != http.StatusNoContent {
		t.Fatalf("the owner's offer: %d %s", code, raw)
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		secret             string
		want               int
	}{
		{"another token's re-offer", "POST", "/api/v1/proxy/permissions", offer("ls (harmless)"), other, http.StatusForbidden},
		{"another token's resolution", "POST", "/api/v1/proxy/permissions/resolved", resolved, other, http.StatusForbidden},
		{"another token's answer poll", "GET", poll, nil, other, http.StatusForbidden},
		{"the owner's re-offer with other params", "POST", "/api/v1/proxy/permissions", offer("ls (harmless)"), owner, http.StatusConflict},
		{"the owner's re-offer as it was (a reconnect)", "POST", "/api/v1/proxy/permissions", offer("rm -rf /"), owner, http.StatusNoContent},
		{"the owner's poll", "GET", poll, nil, owner, http.StatusOK},
	} {
		code, raw := ts.api(t, tc.method, tc.path, tc.body, withToken(tc.secret)...)
		if code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, raw, tc.want)
		}
		if tc.want == http.StatusForbidden && !strings.Contains(string(raw), "belongs to another token") {
			t.Errorf("%s: the refusal does not say why: %s", tc.name, raw)
		}
	}
	_, doc := ts.page(t, "/approvals")
	perms := all(doc, `[data-testid=acp-permission]`)
	if len(perms) != 1 || !strings.Contains(text(perms[0]), "rm -rf /") || strings.Contains(text(perms[0]), "harmless") {
		t.Fatalf("the inbox shows %d requests: %q", len(perms), func() string {
			if len(perms) == 0 {
				return ""
			}
			return text(perms[0])
		}())
	}

	// The person answers; the other token's poll still gets nothing, the owner's gets the answer.
	resp, err := ts.client.PostForm(ts.URL+"/approvals/acp/answer", url.Values{"stream": {"st"}, "id": {"7"}, "option": {"allow"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, _ := ts.api(t, "GET", poll, nil, withToken(other)...); code != http.StatusForbidden {
		t.Errorf("another token's poll after the answer: %d", code)
	}
	code, raw := ts.api(t, "GET", poll, nil, withToken(owner)...)
	var got []struct{ Outcome struct{ OptionID string } }
	if code != http.StatusOK || json.Unmarshal(raw, &got) != nil || len(got) != 1 || got[0].Outcome.OptionID != "allow" {
		t.Fatalf("the owner's poll: %d %s; want the person's answer", code, raw)
	}

	// Same name, another token: another owner.
	if err := ts.tokens.Revoke(context.Background(), "agent1"); err != nil {
		t.Fatal(err)
	}
	renamed := newToken(t, ts, "agent1", tokens.Ingest)
	if code, raw := ts.api(t, "GET", poll, nil, withToken(renamed)...); code != http.StatusForbidden {
		t.Errorf("a new token with the revoked owner's name polled the stream: %d %s", code, raw)
	}
}

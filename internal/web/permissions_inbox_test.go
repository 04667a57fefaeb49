package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// An agent's permission request relayed by `plandash acp` is answered from the approvals inbox.
func TestAcpPermissionInInbox(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	offer := `{"stream":"st","id":7,"sessionId":"s1","inIde":true,"params":{"sessionId":"s1",` +
		`"toolCall":{"toolCallId":"c1","title":"Ready to code?","kind":"switch_mode","rawInput":{"plan":"## Plan\n- [ ] Split the router"}},` +
		`"options":[{"optionId":"exit-plan-default","name":"Yes, manually approve edits","kind":"allow_once"},{"optionId":"reject","name":"No, keep planning","kind":"reject_once"}]}}`
	if code := ts.post(t, "/api/v1/proxy/permissions", offer); code != http.StatusNoContent {
		t.Fatalf("offer: %d", code)
	}
	if n := pendingCount(t, ts); n != 1 {
		t.Fatalf("the pending badge counts %d, want the waiting agent", n)
	}
	_, doc := ts.page(t, "/approvals")
	perms := all(doc, `[data-testid=acp-permission]`)
	if len(perms) != 1 || !strings.Contains(text(perms[0]), "Ready to code?") {
		t.Fatalf("%d permission requests in the inbox", len(perms))
	}
	if n := len(all(perms[0], `[data-testid=acp-plan] h2`)); n != 1 {
		t.Fatal("the plan the agent wants approved is not rendered")
	}
	if opts := all(perms[0], `[data-testid=acp-option]`); len(opts) != 2 || attr(opts[1], "data-option-id") != "reject" {
		t.Fatalf("options: %d", len(opts))
	}
	// The person picks an option on the page.
	resp, err := ts.client.PostForm(ts.URL+"/approvals/acp/answer", url.Values{"stream": {"st"}, "id": {"7"}, "option": {"reject"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/approvals" {
		t.Fatalf("answer: %d at %s", resp.StatusCode, resp.Request.URL.Path)
	}
	_, doc = ts.page(t, "/approvals")
	if n := len(all(doc, `[data-testid=acp-answered]`)); n != 1 {
		t.Fatal("the answered request does not say so")
	}
	if n := pendingCount(t, ts); n != 0 {
		t.Fatalf("the pending badge still counts %d after the answer", n)
	}
	// Answering twice is a conflict, and an option the agent did not offer is refused.
	for opt, want := range map[string]int{"exit-plan-default": http.StatusConflict} {
		resp, _ := ts.client.PostForm(ts.URL+"/approvals/acp/answer", url.Values{"stream": {"st"}, "id": {"7"}, "option": {opt}})
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("second answer: %d, want %d", resp.StatusCode, want)
		}
	}
}

func pendingCount(t *testing.T, ts *testServer) int {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/approvals/count", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct{ Pending int }
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.Pending
}

package app

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

// callAs is call with another bearer token.
func (in *instance) callAs(t testing.TB, secret, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, in.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestProxyStreamOwnedAcrossInstances: a proxy stream bound to the token that opened it on one
// instance is refused to another token on the other instance sharing the database (issue 25,
// item 14), and stays open to its owner there.
func TestProxyStreamOwnedAcrossInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	secret := func(name string) string {
		code, body := a.call(t, "POST", "/api/v1/tokens", `{"name":"`+name+`","scope":"ingest"}`)
		var tok struct{ Secret string }
		if code != http.StatusCreated || json.Unmarshal(body, &tok) != nil || tok.Secret == "" {
			t.Fatalf("create token %s: %d %s", name, code, body)
		}
		return tok.Secret
	}
	owner, other := secret("agent1"), secret("agent2")
	offer := `{"stream":"st","id":7,"sessionId":"s1","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"rm -rf /"},` +
		`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`
	if code, body := a.callAs(t, owner, "POST", "/api/v1/proxy/permissions", offer); code != http.StatusNoContent {
		t.Fatalf("the owner's offer on A: %d %s", code, body)
	}
	harmless := strings.Replace(offer, "rm -rf /", "ls (harmless)", 1)
	if code, body := b.callAs(t, other, "POST", "/api/v1/proxy/permissions", harmless); code != http.StatusForbidden {
		t.Errorf("another token's re-offer on B: %d %s", code, body)
	}
	if code, body := b.callAs(t, other, "GET", "/api/v1/proxy/answers?stream=st&wait=10ms", ""); code != http.StatusForbidden {
		t.Errorf("another token's poll on B: %d %s", code, body)
	}
	if code, body := b.callAs(t, owner, "GET", "/api/v1/proxy/answers?stream=st&wait=10ms", ""); code != http.StatusOK {
		t.Errorf("the owner's poll on B: %d %s", code, body)
	}
	if code, body := b.call(t, "GET", "/api/v1/proxy/permissions", ""); code != 200 || !strings.Contains(string(body), "rm -rf /") || strings.Contains(string(body), "harmless") {
		t.Errorf("B lists %d %s; want the owner's request as offered", code, body)
	}
}

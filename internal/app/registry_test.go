package app

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/web"
)

// TestEveryAgentHasAHookRoute: the application builds every agent of the registry, so each has
// its hook route (an event that does not decode is refused as invalid, not as an unknown agent),
// and a name that is no agent's is refused with the list of those there are. The empty overview
// tells a newcomer how to connect each of them.
func TestEveryAgentHasAHookRoute(t *testing.T) {
	data := t.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "tok", PlansDir: filepath.Join(data, "plans")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	post := func(agent string) (int, string) {
		req := httptest.NewRequest("POST", "/api/v1/hooks/"+agent, strings.NewReader("{not json"))
		req.Host = "127.0.0.1"
		req.Header.Set("Authorization", "Bearer tok")
		rec := httptest.NewRecorder()
		a.Server.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	for _, ag := range registry.All() {
		if code, body := post(ag.Name); code != http.StatusBadRequest {
			t.Errorf("POST /api/v1/hooks/%s with garbage: %d %s, want 400", ag.Name, code, body)
		}
	}
	code, body := post("nope")
	t.Logf("an unknown agent: %s", body)
	if code != http.StatusNotFound {
		t.Fatalf("POST /api/v1/hooks/nope: %d %s, want 404", code, body)
	}
	for _, name := range registry.Names(false) {
		if !strings.Contains(body, name) {
			t.Errorf("the refusal of an unknown agent does not name %s: %s", name, body)
		}
	}
	req := httptest.NewRequest("GET", "/", nil)
	req.Host = "127.0.0.1"
	req.Header.Set("Authorization", "Bearer tok")
	rec := httptest.NewRecorder()
	a.Server.Handler().ServeHTTP(rec, req)
	doc, err := html.Parse(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, row := range cascadia.MustCompile(`[data-testid=connect-agent]`).MatchAll(doc) {
		rows[textOf(cascadia.Query(row, cascadia.MustCompile("dt")))] = textOf(cascadia.Query(row, cascadia.MustCompile("dd")))
	}
	for _, ag := range registry.All() {
		if !strings.Contains(rows[ag.Title], ag.Connect) {
			t.Errorf("the empty overview's row for %s is %q, want it to name %q", ag.Title, rows[ag.Title], ag.Connect)
		}
	}

	// The name comes from the request: the answer quotes it bounded.
	if code, body := post(strings.Repeat("x", 5000)); code != http.StatusNotFound || len(body) > 1000 {
		t.Errorf("an unknown agent's name of 5000 bytes: %d, %d bytes of answer", code, len(body))
	}
}

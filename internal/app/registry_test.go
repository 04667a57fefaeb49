package app

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/web"
)

// TestEveryAgentHasAHookRoute: the application builds every agent of the registry, so each has
// its hook route (an event that does not decode is refused as invalid, not as an unknown agent),
// and a name that is no agent's is refused with the list of those there are.
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
		a.Handler().ServeHTTP(rec, req)
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
	// The name comes from the request: the answer quotes it bounded.
	if code, body := post(strings.Repeat("x", 5000)); code != http.StatusNotFound || len(body) > 1000 {
		t.Errorf("an unknown agent's name of 5000 bytes: %d, %d bytes of answer", code, len(body))
	}
}

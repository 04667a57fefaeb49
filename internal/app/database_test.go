package app

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/store/postgres"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/store/sqlite"
	"github.com/plandash/plandash/internal/web"
)

// TestDatabaseChoice: no --db keeps SQLite in the data directory, a postgres:// URL selects
// PostgreSQL, and anything else is refused with a message that names the flag.
func TestDatabaseChoice(t *testing.T) {
	cfg := func(db string) Config {
		return Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)}, DataDir: t.TempDir(), Token: "tok", DB: db}
	}
	t.Run("no URL is SQLite", func(t *testing.T) {
		a, err := Open(context.Background(), cfg(""))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if _, ok := a.DB.(*sqlite.DB); !ok {
			t.Fatalf("DB is %T, want *sqlite.DB", a.DB)
		}
	})
	t.Run("another scheme is refused", func(t *testing.T) {
		a, err := Open(context.Background(), cfg("mysql://u:p@localhost/db"))
		if err == nil {
			a.Close()
			t.Fatal("Open accepted a mysql:// URL")
		}
		if !strings.Contains(err.Error(), "--db") || strings.Contains(err.Error(), "u:p") {
			t.Fatalf("error = %q; want it to name --db and not repeat the URL", err)
		}
	})
	t.Run("a postgres URL is PostgreSQL, and ingest lands there", func(t *testing.T) {
		a, err := Open(context.Background(), cfg(pgtest.URL(t)))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if _, ok := a.DB.(*postgres.DB); !ok {
			t.Fatalf("DB is %T, want *postgres.DB", a.DB)
		}
		srv := httptest.NewServer(a.Server.Handler())
		defer srv.Close()
		body := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"Build","priority":"high","status":"pending"}]}}}`
		req, err := http.NewRequest("POST", srv.URL+"/api/v1/ingest", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST /api/v1/ingest: %d", resp.StatusCode)
		}
		ps, err := a.DB.Plans().SessionPlans(context.Background(), "s1")
		if err != nil || len(ps) != 1 || len(ps[0].Entries) != 1 || ps[0].Entries[0].Content != "Build" {
			t.Fatalf("SessionPlans(s1) = %+v, %v; want the ingested plan", ps, err)
		}
	})
}

package mcpserver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/metrics/metricstest"
	"github.com/plandash/plandash/internal/tokens"
	"github.com/plandash/plandash/internal/web"
)

// openMCPApp is the whole application with MCP session bounds, on the real router.
func openMCPApp(t *testing.T, idle time.Duration, perToken int) (*app.App, *httptest.Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))},
		DataDir: t.TempDir(), Token: "mcp-token", PlansDir: t.TempDir(), MCPIdle: idle, MCPSessions: perToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	hs := httptest.NewServer(srv.Server.Handler())
	t.Cleanup(func() {
		// Abandoned clients leave their standalone GET streams open; Close would wait on them.
		hs.CloseClientConnections()
		hs.Close()
	})
	return srv, hs
}

// scrape reads one series from GET /metrics.
func scrape(t *testing.T, hs *httptest.Server, name string) float64 {
	t.Helper()
	req, _ := http.NewRequest("GET", hs.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer mcp-token")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc, err := metricstest.Parse(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := sc.Value(name)
	return v
}

func connectAs(ctx context.Context, hs *httptest.Server, token string) (*mcp.ClientSession, error) {
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
}

// TestMCPSessionsCappedPerToken: a token that keeps initializing sessions and never ends them
// holds at most --mcp-sessions of them; each new one closes its longest-idle one (counted on
// /metrics), and the heap does not grow with the number of initialize calls. Another token's
// sessions are its own: they are not evicted by the first token's, and it cannot use them.
func TestMCPSessionsCappedPerToken(t *testing.T) {
	a, hs := openMCPApp(t, time.Hour, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, other, err := a.Tokens.Create(ctx, "other-agent", tokens.Ingest, 0)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := connectAs(ctx, hs, other)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()

	initialize := func(n int) {
		for range n {
			cs, err := connectAs(ctx, hs, "mcp-token")
			if err != nil {
				t.Fatal(err)
			}
			// Abandoned, not closed: the client goes away without DELETE, as the flood did.
			_ = cs
		}
	}
	initialize(50)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	initialize(400)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)

	if got := scrape(t, hs, "plandash_mcp_sessions"); got != 5 {
		t.Errorf("plandash_mcp_sessions = %v after 450 initialize calls, want 4 (the cap) + 1 (the other token's)", got)
	}
	if got := scrape(t, hs, "plandash_mcp_sessions_evicted_total"); got != 446 {
		t.Errorf("plandash_mcp_sessions_evicted_total = %v, want 446", got)
	}
	// 400 more sessions at tens of KiB each would be several MiB; bounded, the heap stays put.
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("the heap grew by %d bytes over 400 initialize calls", grew)
	}
	// The other token's session survived the flood and still works.
	if _, err := kept.ListTools(ctx, nil); err != nil {
		t.Errorf("the other token's session: %v", err)
	}
	// Its session id is not the flooding token's to use.
	req, _ := http.NewRequest("POST", hs.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer mcp-token")
	req.Header.Set("Mcp-Session-Id", kept.ID())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("another token's session id: status %d, want 404", res.StatusCode)
	}
}

// TestMCPSessionsExpireWhenIdle: sessions without a request for --mcp-idle are closed; a
// client that comes back is told (404) and can initialize again.
func TestMCPSessionsExpireWhenIdle(t *testing.T) {
	_, hs := openMCPApp(t, 200*time.Millisecond, 100)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var last *mcp.ClientSession
	for range 20 {
		cs, err := connectAs(ctx, hs, "mcp-token")
		if err != nil {
			t.Fatal(err)
		}
		last = cs
	}
	if got := scrape(t, hs, "plandash_mcp_sessions"); got == 0 {
		t.Fatal("no session counted right after initializing")
	}
	for scrape(t, hs, "plandash_mcp_sessions") != 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("idle sessions never closed: %v open", scrape(t, hs, "plandash_mcp_sessions"))
		case <-time.After(50 * time.Millisecond):
		}
	}
	if _, err := last.ListTools(ctx, nil); err == nil {
		t.Error("a request on an expired session succeeded")
	}
	cs, err := connectAs(ctx, hs, "mcp-token")
	if err != nil {
		t.Fatalf("initializing again after expiry: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Error(err)
	}
}

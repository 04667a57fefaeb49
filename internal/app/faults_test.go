package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/store/fault"
	"github.com/plandash/plandash/internal/testdisk"
	"github.com/plandash/plandash/internal/web"
)

// serveApp opens and serves the application cfg describes (its log discarded, token "tok")
// until the test ends.
func serveApp(t *testing.T, cfg Config) *instance {
	t.Helper()
	cfg.Log, cfg.Token = slog.New(slog.DiscardHandler), "tok"
	a, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		cancel()
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return &instance{App: a, URL: "http://" + ln.Addr().String()}
}

// readyz is the status of GET /readyz.
func (in *instance) readyz(t *testing.T) int {
	t.Helper()
	code, _ := in.send("GET", "/readyz", "", nil)
	return code
}

// unavailable fails the test unless a write's answer is a 503 with Retry-After whose
// detail names cause.
func unavailable(t *testing.T, in *instance, what, method, path, body, cause string) {
	t.Helper()
	req, err := http.NewRequest(method, in.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer resp.Body.Close()
	var p web.Problem
	decodeErr := json.NewDecoder(resp.Body).Decode(&p)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || decodeErr != nil || !strings.HasPrefix(p.Detail, cause) {
		t.Fatalf("%s: %d, Retry-After %q, %+v (%v); want 503 with Retry-After saying %q", what, resp.StatusCode, resp.Header.Get("Retry-After"), p, decodeErr, cause)
	}
}

// planPost is an ingest body of one plan of n entries, each big enough that a few of them need
// new pages in the database file.
func planPost(session string, n int) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session + `","update":{"sessionUpdate":"plan","entries":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"content":"step ` + strings.Repeat("x", 2000) + string(rune('a'+i%26)) + `","priority":"high","status":"pending"}`)
	}
	b.WriteString(`]}}}`)
	return b.String()
}

// TestFullDiskSQLite: the SQLite file's disk fills up. Writes (ingest, a new approval request)
// get 503 with Retry-After saying "disk full", reads still answer, /readyz is 503 and /metrics
// counts the failures; a client posting meanwhile gets through once there is room again, and
// /readyz is 200 by itself.
func TestFullDiskSQLite(t *testing.T) {
	data := filepath.Join(testdisk.Mount(t, 16<<20), "data")
	in := serveApp(t, Config{DataDir: data, PlansDir: filepath.Join(t.TempDir(), "plans")})
	if code, body := in.call(t, "POST", "/api/v1/ingest", planLine("before", "Stored before the disk filled")); code != http.StatusOK {
		t.Fatalf("ingest: %d %s", code, body)
	}
	if code := in.readyz(t); code != http.StatusOK {
		t.Fatalf("readyz with room: %d", code)
	}

	free := testdisk.Fill(t, data)
	defer func() { free() }()
	unavailable(t, in, "ingest on a full disk", "POST", "/api/v1/ingest", planPost("full", 64), "disk full")
	unavailable(t, in, "an approval request on a full disk", "POST", "/api/v1/approvals",
		`{"title":"Deploy","plan":{"type":"markdown","markdown":"`+strings.Repeat("# big\\n", 20000)+`"}}`, "disk full")
	if code, body := in.call(t, "GET", "/api/v1/sessions/before", ""); code != http.StatusOK || !strings.Contains(string(body), "Stored before") {
		t.Fatalf("a read on a full disk: %d %s", code, body)
	}
	if code := in.readyz(t); code != http.StatusServiceUnavailable {
		t.Fatalf("readyz on a full disk: %d, want 503", code)
	}
	if n := scrapeMetrics(t, in).Sum("plandash_store_unavailable_total", "cause", "disk_full"); n < 2 {
		t.Fatalf("plandash_store_unavailable_total{cause=disk_full} = %v, want at least 2", n)
	}

	// A client posts while the disk is full, and someone frees it after the first refusal.
	posted := make(chan error, 1)
	c := client.New(in.URL, "tok")
	go func() {
		_, err := c.Ingest(context.Background(), strings.NewReader(planPost("retried", 64)), client.IngestOptions{})
		posted <- err
	}()
	refused := in.DB.(faulting).Health().Count(fault.DiskFull)
	for deadline := time.Now().Add(20 * time.Second); in.DB.(faulting).Health().Count(fault.DiskFull) == refused; {
		if time.Now().After(deadline) {
			t.Fatal("the client's post was never refused")
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not an assertion
	}
	free()
	free = func() {}
	select {
	case err := <-posted:
		if err != nil {
			t.Fatalf("the client's post once there was room: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the client's post never got through")
	}
	if code, body := in.call(t, "GET", "/api/v1/sessions/retried", ""); code != http.StatusOK {
		t.Fatalf("the retried post is not stored: %d %s", code, body)
	}
	if code := in.readyz(t); code != http.StatusOK {
		t.Fatalf("readyz once there is room: %d, want 200", code)
	}
}

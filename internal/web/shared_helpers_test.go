package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/sharedplans"
)

// sharedServer is a test server on its own plans directory, with a second Store on that
// directory standing in for another process (docker-agent, an MCP client, a person).
type sharedServer struct {
	*testServer
	dir   string
	other *sharedplans.Store
}

// newSharedServer starts a test server on a fresh plans directory; with watch, its watcher
// runs too (as Serve would run it) until the test ends.
func newSharedServer(t testing.TB, watch bool, cfg testConfig) *sharedServer {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plans")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg.PlansDir = dir
	ts := newTestServer(t, cfg)
	if watch {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { ts.srv.shared.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	return &sharedServer{testServer: ts, dir: dir, other: sharedplans.New(dir)}
}

// write stores a plan as another process would.
func (ts *sharedServer) write(t testing.TB, name, content string, meta ...string) sharedplans.Plan {
	t.Helper()
	req := sharedplans.UpsertRequest{Name: name, Content: &content}
	for i, dst := range []**string{&req.Title, &req.Author, &req.Status} {
		if i < len(meta) {
			*dst = &meta[i]
		}
	}
	p, err := ts.other.Upsert(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// call sends an API request with the token and returns the status, headers and body.
func (ts *sharedServer) call(t testing.TB, method, path, body string, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// eventually polls cond until it holds; the deadline is a failure bound, not a measurement.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// historyRevisions is the plan's recorded revisions, newest first (-1 for a removal).
func (ts *sharedServer) historyRevisions(t testing.TB, name string) []int {
	t.Helper()
	hist, err := ts.srv.shared.History().History(context.Background(), name, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := []int{}
	for _, e := range hist {
		if e.Removed {
			out = append(out, -1)
		} else {
			out = append(out, e.Revision)
		}
	}
	return out
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

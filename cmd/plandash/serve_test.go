package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// syncBuffer is a bytes.Buffer a command writes from its goroutine while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testEnv is an environment that keeps a command away from the developer's real files: HOME
// and XDG_DATA_HOME are temp dirs.
func testEnv(t *testing.T) func(string) string {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(home, "data"), "USER": "tester"}
	return func(k string) string { return env[k] }
}

// server is `plandash serve` (or demo) running in process.
type server struct {
	base, token string
	data        string
	stdout      *syncBuffer
	stderr      *syncBuffer
	stop        func() // stops the server and waits for a clean exit; safe to call twice
}

// dashboardLine is the start-up banner as a test (not a terminal) sees it: the address and the
// data directory, without the token.
var dashboardLine = regexp.MustCompile(`plandash \w+ on (http://[^/\s]+) \(data: ([^;)]+)[;)][^\n]*\nOpen the dashboard: http://[^/\s]+/ \(run ` + "`plandash url[^`]*`" + ` for the address with the token\)\n`)

// startServer runs `plandash CMD --addr 127.0.0.1:0 …` in process, reads the address it
// prints, and stops it when the test ends, requiring a clean exit.
func startServer(t *testing.T, cmd string, extra ...string) *server {
	t.Helper()
	data := t.TempDir()
	s := startServerEnv(t, testEnv(t), append([]string{cmd, "--addr", "127.0.0.1:0", "--data", data, "--plans-dir", filepath.Join(t.TempDir(), "plans")}, extra...)...)
	s.data = data
	return s
}

// startServerEnv runs `plandash ARGS…` in process with getenv, as startServer does.
func startServerEnv(t *testing.T, getenv func(string) string, args ...string) *server {
	t.Helper()
	cmd := args[0]
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, getenv, strings.NewReader(""), &stdout, &stderr) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := receive(t, done, "exit of plandash "+cmd); err != nil {
				t.Errorf("plandash %s ended with %v\n%s", cmd, err, stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(testWait)
	for {
		if m := dashboardLine.FindStringSubmatch(stdout.String()); m != nil {
			return &server{base: m[1], token: tokenIn(t, m[2], args), stdout: &stdout, stderr: &stderr, stop: stop}
		}
		select {
		case err := <-done:
			t.Fatalf("plandash %s exited before printing its address: %v\n%s%s", cmd, err, stdout.String(), stderr.String())
		case <-time.After(10 * time.Millisecond): // polling interval, not an assertion
		}
		if time.Now().After(deadline) {
			t.Fatalf("plandash %s printed no address within %s:\n%s", cmd, testWait, stdout.String())
		}
	}
}

// tokenIn is the admin token of a server started with args and data: --token's, else the one
// stored in data.
func tokenIn(t *testing.T, data string, args []string) string {
	t.Helper()
	for i, a := range args {
		if a == "--token" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--token="); ok {
			return v
		}
	}
	b, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// get fetches path with the token and returns the status and body.
func (s *server) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := (&http.Client{Timeout: testWait}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read: %v", path, err)
	}
	return resp.StatusCode, b
}

// getJSON fetches an API route into v, requiring 200.
func (s *server) getJSON(t *testing.T, path string, v any) {
	t.Helper()
	code, b := s.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s answered %d: %s", path, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, b)
	}
}

// page fetches an HTML page, requiring 200, and parses it.
func (s *server) page(t *testing.T, path string) *html.Node {
	t.Helper()
	code, b := s.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s answered %d: %s", path, code, b)
	}
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func count(doc *html.Node, sel string) int { return len(cascadia.MustCompile(sel).MatchAll(doc)) }

func TestServePrintsItsAddressAndServesTheOverview(t *testing.T) {
	s := startServer(t, "serve", "--token", "serve-token")
	if s.token != "serve-token" {
		t.Fatalf("printed token %q, want the one given", s.token)
	}
	doc := s.page(t, "/")
	if n := count(doc, `[data-testid="empty-state"]`); n != 1 {
		t.Fatalf("the empty overview has %d empty states, want 1", n)
	}
	// Without the token the page is refused.
	resp, err := http.Get(s.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the overview without a token answered %s", resp.Status)
	}
}

func TestServeGeneratesAndKeepsItsToken(t *testing.T) {
	s := startServer(t, "serve")
	if len(s.token) < 16 {
		t.Fatalf("generated token %q is too short", s.token)
	}
	// `plandash url` finds the same token in the data directory.
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"url", "--server", s.base, "--data", s.data}, testEnv(t), nil, &out, &errOut); err != nil {
		t.Fatalf("url: %v\n%s", err, errOut.String())
	}
	if got, want := strings.TrimSpace(out.String()), s.base+"/?token="+url.QueryEscape(s.token); got != want {
		t.Fatalf("url printed %q, want %q", got, want)
	}
}

// The demo fills the dashboard by itself: its scripted agents' sessions and plans, a tool-call
// graph, and a request waiting at the gate.
func TestDemoShowsItsAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo's agents take seconds to reach the gate")
	}
	s := startServer(t, "demo", "--token", "demo-token")
	type overview struct {
		Sessions []struct {
			Session struct{ ID string }
			Plans   []struct{ Kind string }
		}
	}
	var counts struct{ Pending int }
	var ov overview
	// The scripts are staggered and paced like real agents: poll until everything is there.
	deadline := time.Now().Add(2 * testWait)
	for {
		s.getJSON(t, "/api/v1/plans", &ov)
		s.getJSON(t, "/api/v1/approvals/count", &counts)
		kinds := map[string]bool{}
		for _, g := range ov.Sessions {
			for _, p := range g.Plans {
				kinds[p.Kind] = true
			}
		}
		if len(ov.Sessions) >= 3 && kinds["dag"] && kinds["items"] && counts.Pending >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the demo shows %d sessions, plan kinds %v, %d pending requests; want 3+ sessions, a dag, items, a waiting request\n%s",
				2*testWait, len(ov.Sessions), kinds, counts.Pending, s.stderr.String())
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
	// The pages show what the API does.
	doc := s.page(t, "/")
	if n := count(doc, `[data-testid="session-group"]`); n < 3 {
		t.Errorf("the overview shows %d sessions, want 3 or more", n)
	}
	if n := count(doc, `[data-testid="plan-card"]`); n < 3 {
		t.Errorf("the overview shows %d plan cards, want 3 or more", n)
	}
	if n := count(s.page(t, "/approvals"), `[data-testid="approval-row"]`); n < 1 {
		t.Errorf("the inbox shows %d requests, want the demo's waiting one", n)
	}
	// The overview as a browser fetches it, compressed: the goal is 30 KB on the wire.
	wire, plain := s.wireSize(t, "/")
	t.Logf("the demo's overview: %d bytes on the wire with gzip, %d bytes uncompressed", wire, plain)
	if wire > 30<<10 {
		t.Errorf("the demo's overview is %d bytes on the wire with gzip, want at most 30 KB", wire)
	}
}

// wireSize fetches path as a browser does (accepting gzip) and returns the bytes on the wire
// and the bytes once decompressed.
func (s *server) wireSize(t *testing.T, path string) (wire, plain int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: testWait}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET %s: %d, Content-Encoding %q; want 200 gzip", path, resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	p, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return len(b), len(p)
}

// TestReleaseWhenQuiet: memory is released once after a burst of changes stops, never while
// changes flow, and not for a trickle.
func TestReleaseWhenQuiet(t *testing.T) {
	tick, seqs, released := make(chan time.Time), make(chan uint64), make(chan uint64, 10)
	var cur uint64 // the change number the loop last read; only the loop touches it
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		seq := func() uint64 { cur = <-seqs; return cur }
		releaseWhenQuiet(ctx, seq, tick, 100, func() { released <- cur })
	}()
	seqs <- 0
	look := func(n uint64) { // a tick, at which the loop reads change number n
		tick <- time.Time{}
		seqs <- n
	}
	var n uint64
	for range 3 {
		n += 10 // a trickle, each change followed by quiet
		look(n)
		look(n)
	}
	for range 50 {
		n += 50 // a burst: changes between every two looks
		look(n)
	}
	look(n) // it stopped
	look(n)
	look(n)
	cancel()
	<-done
	close(released)
	var got []uint64
	for r := range released {
		got = append(got, r)
	}
	if len(got) != 1 || got[0] != n {
		t.Errorf("released at changes %v, want once, at %d (when the burst had stopped)", got, n)
	}
}

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/tokens"
	"github.com/plandash/plandash/internal/web"
)

// hookRig is a whole plandash as `serve` builds it, with its token created in its data
// directory (the file the attacks aim at), an --allow-root, a home of its own whose agents'
// plan directories exist, and an ingest-scoped token: what an attacker who may post hook
// events holds.
type hookRig struct {
	*App
	URL                   string
	ingest                string // an ingest token's secret
	data, home, allowed   string
	claudePlans, geminiTm string // the agents' plan directories under home
}

func startHookRig(t *testing.T, maxBody int64, openCode ...string) *hookRig {
	t.Helper()
	r := &hookRig{data: t.TempDir(), home: t.TempDir(), allowed: t.TempDir()}
	r.claudePlans = filepath.Join(r.home, ".claude", "plans")
	r.geminiTm = filepath.Join(r.home, ".gemini", "tmp")
	for _, d := range []string{r.claudePlans, r.geminiTm, filepath.Join(r.home, ".local", "share", "opencode", "plans")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler), MaxBody: maxBody},
		DataDir: r.data, Home: r.home, AllowRoots: []string{r.allowed}, PlansDir: filepath.Join(r.data, "plans"), Servers: map[string][]string{"opencode": openCode}})
	if err != nil {
		t.Fatal(err)
	}
	r.App = a
	if _, r.ingest, err = a.Tokens.Create(context.Background(), "attacker", tokens.Ingest, 0); err != nil {
		a.Close()
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
	r.URL = "http://" + ln.Addr().String()
	return r
}

// do sends a request with token and returns the status, headers and body; a request that ctx
// cut short comes back as status -1.
func (r *hookRig) do(t testing.TB, ctx context.Context, token, method, path string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, r.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return -1, nil, nil
		}
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// hook posts one event to POST /api/v1/hooks/{agent} with the ingest token.
func (r *hookRig) hook(t testing.TB, agent string, event any) int {
	t.Helper()
	code, _, body := r.do(t, context.Background(), r.ingest, "POST", "/api/v1/hooks/"+agent, mustJSON(t, event))
	if code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("hook %s: %d %s", agent, code, body)
	}
	return code
}

// admin reads an API path with the admin token, failing on anything but 200.
func (r *hookRig) admin(t testing.TB, path string) []byte {
	t.Helper()
	code, _, body := r.do(t, context.Background(), r.Token, "GET", path, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return body
}

// session waits until the session exists (capture events are recorded just after they are
// acknowledged) and returns its API document.
func (r *hookRig) session(t testing.TB, id string, ready func(doc []byte) bool) []byte {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, _, body := r.do(t, context.Background(), r.Token, "GET", "/api/v1/sessions/"+url.PathEscape(id), nil)
		if code == http.StatusOK && (ready == nil || ready(body)) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s never recorded: %d %s", id, code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pending waits until at least n approval requests are pending and returns their ids.
func (r *hookRig) pending(t testing.TB, n int) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var list struct{ Requests []struct{ ID string } }
		if err := json.Unmarshal(r.admin(t, "/api/v1/approvals?status=pending&limit=500"), &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Requests) >= n {
			ids := make([]string, len(list.Requests))
			for i, q := range list.Requests {
				ids[i] = q.ID
			}
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests reached the gate", len(list.Requests), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	if b, ok := v.([]byte); ok {
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// secrets are the attack's targets and the text that must never come back: the admin token in
// the data directory and the first line of /etc/passwd.
type secrets struct {
	paths []string
	texts []string
}

// plant makes the targets an attacker names: the token file and /etc/passwd as they are, .md
// symlinks out of the allowed root and of an agent's plan directory, and FIFOs named .md in
// both (a reader that opens one without O_NONBLOCK hangs forever).
func (r *hookRig) plant(t *testing.T) (targets secrets, fifos []string) {
	t.Helper()
	tokenFile := filepath.Join(r.data, "token")
	targets.paths = append(targets.paths, tokenFile)
	targets.texts = append(targets.texts, r.Token)
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		first, _, _ := strings.Cut(string(b), "\n")
		targets.paths = append(targets.paths, "/etc/passwd")
		targets.texts = append(targets.texts, first)
	}
	for _, link := range []struct{ at, to string }{
		{filepath.Join(r.allowed, "leak.md"), tokenFile},
		{filepath.Join(r.claudePlans, "leak.md"), tokenFile},
		{filepath.Join(r.geminiTm, "leak.md"), tokenFile},
		{filepath.Join(r.allowed, "passwd.md"), "/etc/passwd"},
	} {
		if err := os.Symlink(link.to, link.at); err != nil {
			t.Fatal(err)
		}
		targets.paths = append(targets.paths, link.at)
	}
	for _, dir := range []string{r.allowed, r.claudePlans, r.geminiTm} {
		f := filepath.Join(dir, "fifo.md")
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, f)
	}
	return targets, fifos
}

// noSecret fails when doc shows any of the secrets' texts.
func (s secrets) noSecret(t testing.TB, where string, doc []byte) {
	t.Helper()
	for _, text := range s.texts {
		if text != "" && bytes.Contains(doc, []byte(text)) {
			t.Errorf("%s shows the content of a file outside the allowed roots (%.12q…)", where, text)
		}
	}
}

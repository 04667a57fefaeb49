// Package e2e drives the real plandash server in headless Chromium: real HTTP on port 0, real
// SQLite in a temp dir, the real page script and websocket.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	pdapp "github.com/plandash/plandash/internal/app"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/plandash/plandash/internal/web"
)

// token is the server's token in every test.
const token = "test-token"

// waitFor bounds every wait for the page to reach a state. It is a failure deadline, not a
// measurement: on a loaded 2-core CI machine a page can be slow, so it is generous.
const waitFor = 20 * time.Second

// The browser is started once per test binary (Chromium start-up is the slowest part of a
// run on two cores); every test gets its own browser context, so cookies and storage never
// leak between tests.
var shared struct {
	once   sync.Once
	ctx    context.Context // the browser's first context; tabs are made from it
	cancel func()
	err    error
}

// runDir holds everything this test binary writes outside the tests' own temp dirs (the built
// tools, Chromium's profile). It is private to this run, so concurrent runs never overwrite
// each other's binaries, and TestMain removes it at the end. Set once, before any test runs.
var runDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "plandash-e2e-run-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: make the run directory:", err)
		os.Exit(1)
	}
	runDir = dir
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	if err := os.RemoveAll(runDir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: remove the run directory:", err)
	}
	os.Exit(code)
}

// chromePath finds the browser: $PLANDASH_CHROME when set (a path or a name on PATH), else the
// usual names of Chromium and Chrome on PATH, Debian's first.
func chromePath(getenv func(string) string) (string, error) {
	if p := getenv("PLANDASH_CHROME"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("PLANDASH_CHROME=%s: %w", p, err)
		}
		return found, nil
	}
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell", "chrome"}
	for _, n := range names {
		if found, err := exec.LookPath(n); err == nil {
			return found, nil
		}
	}
	return "", fmt.Errorf("none of %v is on PATH and PLANDASH_CHROME is not set: run scripts/test.sh, which installs Chromium", names)
}

// startBrowser starts headless Chromium once. A missing Chromium fails the test: these tests
// are part of CI, and a skip would hide that the browser suite never ran.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	shared.once.Do(func() {
		path, err := chromePath(os.Getenv)
		if err != nil {
			shared.err = err
			return
		}
		dir := filepath.Join(runDir, "chromium")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			shared.err = err
			return
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(path),
			chromedp.Headless,
			chromedp.NoSandbox, // the tests run as root in CI; Chromium refuses its sandbox there
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true), // containers have a tiny /dev/shm
			chromedp.Flag("disable-background-timer-throttling", true),
			chromedp.Flag("disable-renderer-backgrounding", true),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1280, 800),
		)
		bctx, cancelBrowser := chromedp.NewContext(actx)
		// The first Run starts the browser and binds it to bctx: no timeout here.
		if err := chromedp.Do(bctx); err != nil {
			cancelBrowser()
			cancelAlloc()
			shared.err = fmt.Errorf("start chromium at %s: %w", path, err)
			return
		}
		shared.ctx = bctx
		shared.cancel = func() { cancelBrowser(); cancelAlloc() }
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.ctx
}

// app is one running plandash server.
type app struct {
	t      *testing.T
	dir    string
	addr   string
	srv    *pdapp.App
	cancel context.CancelFunc
	done   chan error
	client *http.Client
}

// startApp starts the real server on addr ("127.0.0.1:0" for any port) with its SQLite store
// in dir. It is stopped when the test ends.
func startApp(t *testing.T, dir, addr string) *app {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	return serveOn(t, dir, ln)
}

// serveOn starts the real server on ln with its store in dir.
func serveOn(t *testing.T, dir string, ln net.Listener) *app {
	t.Helper()
	return serveConfig(t, ln, pdapp.Config{DataDir: dir})
}

// serveConfig starts the real server on ln with cfg; the token and the test logger are filled
// in, and DataDir defaults to a temp dir.
func serveConfig(t *testing.T, ln net.Listener, cfg pdapp.Config) *app {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	cfg.Token, cfg.Log = token, testLogger(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := pdapp.Open(ctx, cfg)
	if err != nil {
		cancel()
		ln.Close()
		t.Fatalf("open server: %v", err)
	}
	a := &app{t: t, dir: cfg.DataDir, addr: ln.Addr().String(), srv: srv, cancel: cancel, done: make(chan error, 1),
		client: &http.Client{Timeout: waitFor}}
	go func() { a.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(a.stop)
	return a
}

// stop cancels the server and waits for Serve to return (the store is closed by then).
// A graceful shutdown that ran out of its grace period is not a failure: the test asked
// for the stop, and on a loaded machine a socket may take longer to wind down. Serve has still
// closed the listener and the store when it returns.
func (a *app) stop() {
	a.t.Helper()
	if a.cancel == nil {
		return
	}
	a.cancel()
	a.cancel = nil
	select {
	case err := <-a.done:
		switch {
		case err == nil, errors.Is(err, http.ErrServerClosed):
		case errors.Is(err, context.DeadlineExceeded):
			a.t.Logf("server on %s: graceful shutdown ran out of time (%v); it has stopped", a.addr, err)
		default:
			a.t.Errorf("server on %s stopped with: %v", a.addr, err)
		}
	case <-time.After(2 * waitFor):
		a.t.Errorf("server on %s did not stop within %s", a.addr, 2*waitFor)
	}
}

// saveShot writes a screenshot for people to look at into the test's artifact directory and
// logs where it went.
func saveShot(t *testing.T, name string, png []byte) {
	t.Helper()
	path := filepath.Join(artifactDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
	t.Logf("screenshot: %s", path)
}

// artifactDir is where a test's screenshots go: $PLANDASH_ARTIFACTS/<test> when set (CI keeps
// it), else the test's own temp dir. Never the source tree.
func artifactDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PLANDASH_ARTIFACTS")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifacts directory: %v", err)
	}
	return dir
}

func (a *app) url(path string) string { return "http://" + a.addr + path }

// ingest posts NDJSON messages and requires every one of them to be applied.
func (a *app) ingest(msgs ...string) {
	a.t.Helper()
	a.ingestQuery("", msgs...)
}

// ingestQuery is ingest with a query string, such as "stream=ID" to pair requests and responses.
func (a *app) ingestQuery(query string, msgs ...string) {
	a.t.Helper()
	body := strings.Join(msgs, "\n") + "\n"
	u := a.url("/api/v1/ingest")
	if query != "" {
		u += "?" + query
	}
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Fatalf("ingest: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("ingest answered %s, then the body failed: %v", resp.Status, err)
	}
	var res web.IngestResult
	if err := json.Unmarshal(raw, &res); err != nil {
		a.t.Fatalf("ingest answered %s with %q: %v", resp.Status, raw, err)
	}
	if resp.StatusCode != http.StatusOK || res.Applied != len(msgs) || len(res.Errors) > 0 {
		a.t.Fatalf("ingest answered %s, applied %d of %d: %s", resp.Status, res.Applied, len(msgs), raw)
	}
}

// getJSON reads an API route into v, failing the test on any error or a status other than 200.
func (a *app) getJSON(path string, v any) {
	a.t.Helper()
	code, raw := a.gateAPI(http.MethodGet, path, "")
	if code != http.StatusOK {
		a.t.Fatalf("GET %s answered %d: %s", path, code, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		a.t.Fatalf("GET %s: decode %s: %v", path, raw, err)
	}
}

// Messages, as an agent sends them.

type entry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// rpc is a JSON-RPC request (id > 0) or response (method "").
func rpc(id int, method string, params, result any) string {
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if method != "" {
		m["method"], m["params"] = method, params
	} else {
		m["result"] = result
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// startSession is the traffic that opens a session on stream: initialize (naming the agent)
// and session/new (naming the directory), with their responses.
func startSession(a *app, stream, session, agent, cwd string) {
	a.t.Helper()
	a.ingestQuery("stream="+stream,
		rpc(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}}}, nil),
		rpc(1, "", nil, map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": agent, "title": agent, "version": "1.0.0"}}),
		rpc(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, nil),
		rpc(2, "", nil, map[string]any{"sessionId": session}),
	)
}

func update(session string, u map[string]any) string {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update",
		"params": map[string]any{"sessionId": session, "update": u}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// planV1 is a v1 "plan" update: the session's plan with id "main".
func planV1(session string, entries ...entry) string {
	return update(session, map[string]any{"sessionUpdate": "plan", "entries": entries})
}

func planItems(session, id string, entries ...entry) string {
	return update(session, map[string]any{"sessionUpdate": "plan_update",
		"plan": map[string]any{"type": "items", "planId": id, "entries": entries}})
}

func planMarkdown(session, id, content string) string {
	return update(session, map[string]any{"sessionUpdate": "plan_update",
		"plan": map[string]any{"type": "markdown", "planId": id, "content": content}})
}

func planRemoved(session, id string) string {
	return update(session, map[string]any{"sessionUpdate": "plan_removed", "planId": id})
}

// page is one browser tab on a server.
type page struct {
	t    *testing.T
	ctx  context.Context
	name string

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
	others  map[target.ID]context.Context // out-of-process iframes attached to (evalInOtherProcess)
}

// openPage opens a tab in a fresh browser context, signs in with ?token= and waits until the
// page's socket is live.
func openPage(t *testing.T, a *app, path string) *page {
	t.Helper()
	bctx := startBrowser(t)
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx, name: strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())}
	// Subscribe before the first navigation so nothing the page logs is lost.
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	t.Cleanup(p.checkConsole)
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	p.do(chromedp.Navigate(a.url(path + sep + "token=" + token)))
	loc := p.eval(`location.href`)
	if strings.Contains(loc, "token=") {
		t.Fatalf("after sign-in the address still carries the token: %s", loc)
	}
	p.waitConn("live")
	return p
}

// checkConsole fails the test on script errors and Content-Security-Policy violations:
// both mean the page is not doing what it should, even when the DOM looks right.
func (p *page) checkConsole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The same message repeats (once per swapped fragment, say): report each once, counted.
	seen := map[string]int{}
	var order []chromedp.ConsoleMessage
	for _, m := range p.console {
		k := string(m.Type) + m.Text
		if seen[k] == 0 {
			order = append(order, m)
		}
		seen[k]++
	}
	for _, m := range order {
		n := ""
		if c := seen[string(m.Type)+m.Text]; c > 1 {
			n = fmt.Sprintf(" (%d times)", c)
		}
		switch {
		case m.IsException():
			p.t.Errorf("uncaught exception in the page%s: %s (%s:%d)", n, m.Text, m.URL, m.Line+1)
		case strings.Contains(m.Text, "Content Security Policy"):
			p.t.Errorf("Content-Security-Policy violation in the page%s: %s", n, m.Text)
		default:
			p.t.Logf("console%s: %s", n, m)
		}
	}
}

// do runs actions in the tab, failing the test on error.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitFor)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.fail("browser action failed: %v", err)
	}
}

// eval evaluates a JavaScript expression and returns its value as JSON-ish text; use evalAs
// for typed results.
func (p *page) eval(expr string) string {
	p.t.Helper()
	return evalAs[string](p, expr)
}

func evalAs[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitFor)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.fail("evaluate %s: %v", expr, err)
	}
	return v
}

// wait polls the page until the JavaScript condition is true. The predicate runs in the page
// through DevTools (never through eval in the page, which its CSP forbids); an exception in
// it counts as "not yet", so conditions may read elements that do not exist yet.
func (p *page) wait(what, cond string) {
	p.t.Helper()
	deadline := time.Now().Add(waitFor)
	var last error
	for {
		ctx, cancel := context.WithTimeout(p.ctx, waitFor)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(function(){ try { return (`+cond+`); } catch (e) { return false; } })()`))
		cancel()
		if err == nil && ok {
			return
		}
		last = err
		if time.Now().After(deadline) {
			detail := ""
			if last != nil {
				detail = fmt.Sprintf(" (last error: %v)", last)
			}
			p.fail("timed out after %s waiting for %s%s\ncondition: %s", waitFor, what, detail, cond)
		}
		select {
		case <-p.ctx.Done():
			p.fail("tab closed while waiting for %s: %v", what, p.ctx.Err())
		case <-time.After(50 * time.Millisecond): // polling interval, not an assertion
		}
	}
}

// waitConn waits for the connection badge to reach state ("live", "reconnecting").
func (p *page) waitConn(state string) {
	p.t.Helper()
	p.wait("the connection badge to be "+state, fmt.Sprintf(`document.getElementById("conn").dataset.state === %q`, state))
}

// fail records what the page looked like, then fails the test.
func (p *page) fail(format string, args ...any) {
	p.t.Helper()
	msg := fmt.Sprintf(format, args...)
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	if html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("conn")||{}).outerHTML + "\n" + (document.getElementById("main")||document.body||{}).outerHTML`)); err == nil {
		if len(html) > 6000 {
			html = html[:6000] + "…"
		}
		msg += "\npage:\n" + html
	}
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		path := filepath.Join(artifactDir(p.t), "failed-"+p.name+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			msg += "\nscreenshot not saved: " + err.Error()
		} else {
			msg += "\nscreenshot: " + path
		}
	}
	p.t.Fatal(msg)
}

// markNoReload sets a marker that only survives if the page is never reloaded or navigated.
func (p *page) markNoReload() {
	p.t.Helper()
	p.eval(`window.__marker = 1; "ok"`)
}

func (p *page) requireNoReload() {
	p.t.Helper()
	if n := evalAs[int](p, `window.__marker || 0`); n != 1 {
		p.fail("the page was reloaded or navigated (window.__marker is gone)")
	}
}

// submit clicks a button that posts a form and waits until the page that answers it has
// loaded, so that a navigation which follows does not abort the form's own.
func (p *page) submit(sel string) {
	p.t.Helper()
	p.markNoReload()
	p.do(click(sel))
	p.wait("the page after "+sel, `!window.__marker && document.readyState === "complete"`)
}

// card is a CSS selector for a plan's card on the overview.
func card(session, plan string) string {
	return fmt.Sprintf(`[data-testid="session-group"][data-session-id=%q] [data-testid="plan-card"][data-plan-id=%q]`, session, plan)
}

// js quotes s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(bytes.TrimSpace(b))
}

// testLogger sends the server's warnings and errors to the test log while the test runs.
func testLogger(t *testing.T) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() { w.mu.Lock(); w.done = true; w.mu.Unlock() })
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Logf("server: %s", bytes.TrimRight(b, "\n"))
	}
	return len(b), nil
}

// typeInto types text into the first visible element matching the CSS selector, as a person
// would: focus, then key events. chromedp.SendKeys does the same but reads the node's attributes
// while the page may be changing them (a data race the race detector reports on VS Code's
// command palette, whose attributes change as it filters).
func typeInto(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Focus(chromedp.CSS(sel), chromedp.NodeVisible), chromedp.KeyEvent(text))
}

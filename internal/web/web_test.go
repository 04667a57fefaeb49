package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/agents/claude"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/store/sqlite"
	"github.com/plandash/plandash/internal/tokens"
	"github.com/plandash/plandash/web/templates"
	"golang.org/x/net/html"
)

const testToken = "test-token"

type testServer struct {
	*httptest.Server
	srv    *Server
	client *http.Client    // carries the page cookie
	tokens *tokens.Service // the per-agent tokens the server takes
	db     *sqlite.DB      // the stores, for tests that fill them directly
	store  plans.Store     // the plans' store, for tests that fill it directly
	dbPath string          // its SQLite file
}

// testConfig is a test server's set-up: the HTTP side's Config and the application's own.
type testConfig struct {
	FrameAncestors []string
	MaxBody        int64
	MaxLine        int
	User           string
	UserHeader     string
	ClientIPHeader string
	AllowRoots     []string
	PlansDir       string
	Now            func() time.Time
	LockWait       time.Duration
	Hosts          []string
}

// newTestServer is the whole application on a real SQLite file in a temp dir, served by httptest,
// with the live layer and the gate's deadline loop running until the test ends. It builds the
// application the way internal/app does (which tests here cannot import: it imports this package).
func newTestServer(t testing.TB, cfg testConfig) *testServer {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	dbPath := filepath.Join(t.TempDir(), "plandash.db")
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	svc := plans.NewService(db.Plans(), plans.Config{Now: cfg.Now, Log: log})
	gate, err := approval.New(ctx, db.Approvals(), approval.Config{Now: cfg.Now, Log: log, ValidateDAG: dag.Check,
		Place: func(ctx context.Context, id string) approval.Place {
			m, cwd := svc.Where(ctx, id)
			return approval.Place{Machine: m, Cwd: cwd}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.PlansDir == "" {
		cfg.PlansDir = filepath.Join(t.TempDir(), "plans")
	}
	store := sharedplans.New(cfg.PlansDir)
	shared := sharedplans.NewService(store, db.SharedHistory(), sharedplans.ServiceConfig{Log: log, Now: cfg.Now, LockWait: cfg.LockWait})
	gate.OnChange(shared.GateChanged)
	var roots *files.Roots
	var policy files.Policy
	if len(cfg.AllowRoots) > 0 {
		if roots, err = files.NewRoots(cfg.AllowRoots...); err != nil {
			t.Fatal(err)
		}
		policy = roots
	}
	tools := sharedplans.NewToolset(store, policy)
	mcpSrv := mcpserver.New(mcpserver.Options{Version: "test", SharedPlans: tools, Approvals: testApprover{gate}})
	lv := live.New(hub.New(hub.Options{}), live.Options{Log: log, Now: cfg.Now})
	toks := tokens.NewService(db.Tokens(), cfg.Now, log)
	srv := NewServer(Deps{
		Tokens: toks,
		Config: Config{Hosts: cfg.Hosts, FrameAncestors: cfg.FrameAncestors, MaxBody: cfg.MaxBody, MaxLine: cfg.MaxLine, User: cfg.User, UserHeader: cfg.UserHeader, ClientIPHeader: cfg.ClientIPHeader, Log: log},
		Token:  testToken, Plans: svc, Gate: gate, Shared: shared, SharedTools: tools, Perms: permissions.New(cfg.Now), Live: lv, Files: roots,
		Hooks: map[string]AgentHooks{"claude": claude.NewService(svc, gate, claude.Config{Log: log})},
		Connect: []templates.ConnectAgent{{Title: "Claude Code", Command: "plandash install claude --gate", Discovered: true},
			{Title: "OpenCode", Command: "plandash install opencode", Discovered: true, Restart: true},
			{Title: "Elsewhere CLI", Command: "plandash install elsewhere"}},
		MCP:    mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, nil),
		Notify: notify.New(db.Notify(), noWaits{}, notify.Config{BaseURL: "http://127.0.0.1", Log: log}),
	})
	var bg sync.WaitGroup
	for _, run := range []func(context.Context){lv.Run} {
		bg.Go(func() { run(ctx) })
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); cancel(); bg.Wait(); db.Close() })
	jar, _ := cookiejar.New(nil)
	return &testServer{Server: ts, srv: srv, client: &http.Client{Jar: jar}, tokens: toks, db: db, store: db.Plans(), dbPath: dbPath}
}

// noWaits is an empty list of waits: the notifier's routes answer, and it announces nothing.
type noWaits struct{}

func (noWaits) Await(ctx context.Context, after uint64) (notify.Update, error) {
	<-ctx.Done()
	return notify.Update{Seq: after, Whole: true}, ctx.Err()
}

// testApprover is the gate as the MCP approval tool sees it.
type testApprover struct{ g *approval.Gate }

func (a testApprover) Submit(ctx context.Context, sub approval.Submission) (approval.Request, error) {
	r, _, err := a.g.Submit(ctx, sub)
	return r, err
}

func (a testApprover) Wait(ctx context.Context, id string, d time.Duration) (approval.Request, error) {
	return a.g.Wait(ctx, id, d)
}

// ingest posts body with the token and decodes the answer.
func (ts *testServer) ingest(t testing.TB, body string) (int, IngestResult) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/ingest", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res IngestResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, res
}

// page logs in once through ?token= and returns the parsed page.
func (ts *testServer) page(t *testing.T, path string) (int, *html.Node) {
	t.Helper()
	u := ts.URL + path
	if !ts.loggedIn() {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		u += sep + "token=" + testToken
	}
	resp, err := ts.client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, doc
}

func (ts *testServer) loggedIn() bool {
	req, _ := http.NewRequest("GET", ts.URL, nil)
	return len(ts.client.Jar.Cookies(req.URL)) > 0
}

func all(doc *html.Node, sel string) []*html.Node {
	return cascadia.MustCompile(sel).MatchAll(doc)
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func update(sid, u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sid + `","update":` + u + `}}`
}

const planA = `{"sessionUpdate":"plan","entries":[{"content":"Write tests","priority":"high","status":"completed"},{"content":"Ship","priority":"low","status":"pending"}]}`

func TestIngest(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	tests := []struct {
		name       string
		body       string
		wantStatus int
		applied    int
		errLines   map[int]int // line -> code
	}{
		{"one message", update("s", planA), 200, 1, nil},
		{"ndjson with bad lines", update("s", planA) + "\n{not json\n" + `{"jsonrpc":"1.0","method":"x"}` + "\n" +
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":5}}` + "\n\n" + update("s", planA) + "\n",
			200, 2, map[int]int{2: -32700, 3: -32600, 4: -32602}},
		{"json array batch", "[" + update("s", planA) + "," + update("t", planA) + "]", 200, 2, nil},
		{"pretty-printed message", "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"session/update\",\n  \"params\": {\"sessionId\": \"p\", \"update\": " + planA + "}\n}", 200, 1, nil},
		{"all bad", "nope\n", 400, 0, map[int]int{1: -32700}},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"\xff\"}}", 400, 0, map[int]int{1: -32700}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, res := ts.ingest(t, tt.body)
			if code != tt.wantStatus || res.Applied != tt.applied || len(res.Errors) != len(tt.errLines) {
				t.Fatalf("status %d result %+v", code, res)
			}
			for _, e := range res.Errors {
				if tt.errLines[e.Line] != e.Code || e.Message == "" {
					t.Errorf("error %+v, want code %d on line %d", e, tt.errLines[e.Line], e.Line)
				}
			}
		})
	}
}

func TestIngestLimitsAndAuth(t *testing.T) {
	ts := newTestServer(t, testConfig{MaxBody: 4096, MaxLine: 1024})
	// post answers the response and its problem; an answer that is not a problem (the standard
	// library's plain-text refusal of a cross-site request) gives a zero Problem.
	post := func(t *testing.T, body, auth string, hdr map[string]string) (*http.Response, Problem) {
		t.Helper()
		req, err := http.NewRequest("POST", ts.URL+"/api/v1/ingest", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p Problem
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
			if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
				t.Fatalf("a problem answer that does not decode: %v", err)
			}
		}
		return resp, p
	}
	big := update("s", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`+strings.Repeat("x", 2000)+`"}}`)
	for _, tt := range []struct {
		name, body, auth string
		hdr              map[string]string
		status           int
		detail           string
	}{
		{"no token", update("s", planA), "", nil, 401, "token"},
		{"wrong token", update("s", planA), "Bearer nope", nil, 401, "token"},
		{"body too large", strings.Repeat(update("s", planA)+"\n", 20), "Bearer " + testToken, nil, 413, "4 KiB limit"},
		{"line too large", big + "\n", "Bearer " + testToken, nil, 413, "line 1 is over the 1 KiB line limit"},
		{"cross-site browser post", update("s", planA), "Bearer " + testToken, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, p := post(t, tt.body, tt.auth, tt.hdr)
			if resp.StatusCode != tt.status || !strings.Contains(p.Detail, tt.detail) {
				t.Fatalf("status %d problem %+v", resp.StatusCode, p)
			}
		})
	}
	// Nothing of a refused request was stored.
	if seq := ts.srv.plans.Seq(); seq != 0 {
		t.Fatalf("refused requests changed the store (seq %d)", seq)
	}
}

func TestPagesNeedToken(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("page without token: %d", resp.StatusCode)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, _ = noRedirect.Get(ts.URL + "/sessions?token=" + testToken)
	resp.Body.Close()
	c := resp.Cookies()
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/sessions" || len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Value == testToken {
		t.Fatalf("login: %d %q %+v", resp.StatusCode, resp.Header.Get("Location"), c)
	}
	if h := resp.Header; !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'self'") || h.Get("X-Frame-Options") != "SAMEORIGIN" || h.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("security headers: %v", h)
	}
}

func TestOverviewPage(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	_, doc := ts.page(t, "/")
	if len(all(doc, `[data-testid=empty-state]`)) != 1 || len(all(doc, `[data-testid=plan-card]`)) != 0 {
		t.Fatal("empty overview has no empty state")
	}
	// A newcomer's empty page says how to connect each agent, one command each.
	connect := map[string]string{}
	for _, row := range all(doc, `[data-testid=connect-agent]`) {
		connect[text(one(t, row, "dt"))] = text(one(t, row, "dd"))
	}
	for agent, cmd := range map[string]string{"Claude Code": "its sessions show up by themselves; plandash install claude --gate adds the gate",
		"OpenCode": "plandash install opencode, then restart OpenCode, adds", "Elsewhere CLI": "plandash install elsewhere connects it",
		"An IDE's ACP agent": "plandash acp -- AGENT"} {
		if !strings.Contains(connect[agent], cmd) {
			t.Errorf("the empty overview's line for %s is %q, want it to name %q", agent, connect[agent], cmd)
		}
	}
	ts.ingest(t, update("s1", planA)+"\n"+
		update("s1", `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"md","content":"## Steps\n- [x] done\n- [ ] todo\n\n<script>alert(1)</script> [x](javascript:alert(1))\n\n| a | b |\n|---|---|\n| 1 | 2 |"}}`)+"\n"+
		update("s2", `{"sessionUpdate":"plan","entries":[{"content":"<img src=x onerror=alert(1)>","priority":"medium","status":"in_progress"}]}`))
	_, doc = ts.page(t, "/")
	if n := len(all(doc, `[data-testid=session-group]`)); n != 2 {
		t.Fatalf("%d session groups", n)
	}
	cards := all(doc, `[data-testid=plan-card]`)
	if len(cards) != 3 {
		t.Fatalf("%d cards", len(cards))
	}
	prog := all(doc, `[data-session-id=s1] [data-plan-id=main] [data-testid=plan-progress]`)
	if len(prog) != 1 || attr(prog[0], "aria-valuenow") != "50" || attr(prog[0], "data-done") != "1" {
		t.Fatalf("progress bars: %d", len(prog))
	}
	md := all(doc, `[data-testid=plan-markdown]`)
	if len(md) != 1 || len(all(md[0], "h2")) != 1 || len(all(md[0], "input[type=checkbox]")) != 2 || len(all(md[0], "table")) != 1 {
		t.Fatal("markdown not rendered with heading, task list and table")
	}
	if len(all(md[0], "script")) != 0 || len(all(md[0], `a[href^=javascript]`)) != 0 {
		t.Fatal("markdown let raw HTML or a javascript: link through")
	}
	if len(all(doc, `[data-testid=plan-card] img`)) != 0 || !strings.Contains(text(doc), "<img src=x onerror=alert(1)>") {
		t.Fatal("agent text was not escaped")
	}
	if title := text(all(doc, "title")[0]); title != "2 in progress — plandash" {
		t.Fatalf("title %q", title)
	}
}

func TestSessionAndHistoryPages(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.ingest(t, update("s1", `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]}`)+"\n"+
		update("s1", `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read main.go","kind":"read","status":"in_progress"}`)+"\n"+
		update("s1", planA))
	code, doc := ts.page(t, "/sessions/s1")
	if code != 200 || len(all(doc, `[data-testid=tool-call][data-status=in_progress]`)) != 1 || len(all(doc, `[data-testid=history-link]`)) != 1 {
		t.Fatalf("session page: %d", code)
	}
	_, doc = ts.page(t, "/sessions/s1/plans/main/history?from=1&to=2")
	var added, removed int
	for _, l := range all(doc, `[data-testid=plan-diff] [data-testid=diff-change]`) {
		switch attr(l, "data-op") {
		case "added":
			added++
		case "removed":
			removed++
		}
	}
	if added != 2 || removed != 1 {
		t.Fatalf("diff: +%d -%d", added, removed)
	}
	if code, _ := ts.page(t, "/sessions/nope"); code != 404 {
		t.Fatalf("missing session: %d", code)
	}
	if code, _ := ts.page(t, "/sessions/s1/plans/main/history?from=9"); code != 400 {
		t.Fatalf("bad revision: %d", code)
	}
}

func TestFilePlansOnlyUnderAllowedRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "plan.md"), []byte("# Allowed plan"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# Secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, testConfig{AllowRoots: []string{root}})
	for id, uri := range map[string]string{
		"ok": "file://" + root + "/plan.md", "out": "file://" + outside + "/secret.md",
		"link": "file://" + root + "/link.md", "dots": "file://" + root + "/../" + filepath.Base(outside) + "/secret.md",
	} {
		ts.ingest(t, update("s", `{"sessionUpdate":"plan_update","plan":{"type":"file","planId":"`+id+`","uri":"`+uri+`"}}`))
	}
	_, doc := ts.page(t, "/")
	body := text(doc)
	if !strings.Contains(body, "Allowed plan") || strings.Contains(body, "Secret") {
		t.Fatalf("file content shown wrongly: %s", body)
	}
	if n := len(all(doc, `[data-testid=plan-file-note]`)); n != 3 {
		t.Fatalf("%d refusals shown, want 3", n)
	}
}

func TestSocket(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	wsURL := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws?topic=all"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	auth := http.Header{"Authorization": {"Bearer " + testToken}}

	if _, resp, err := websocket.Dial(ctx, wsURL, nil); err == nil || resp.StatusCode != 401 {
		t.Fatalf("socket without token: %v", err)
	}
	if _, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{
		"Authorization": {"Bearer " + testToken}, "Origin": {"https://evil.example"}}}); err == nil || resp.StatusCode != 403 {
		t.Fatalf("socket from a foreign origin: %v", err)
	}
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: auth})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ts.ingest(t, update("s9", planA))
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := decodeFrame(t, c, b)
	if f.T != "f" || f.ID != "s-s9" || f.Parent != "sessions" || f.Seq == 0 || !strings.Contains(f.HTML, "Write tests") {
		t.Fatalf("frame = %+v", f)
	}

	// A page reconnecting from an older seq is sent what changed since.
	ts.ingest(t, update("s10", planA))
	c2, _, err := websocket.Dial(ctx, wsURL+"&since="+itoa(f.Seq), &websocket.DialOptions{HTTPHeader: auth})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.CloseNow()
	_, b, _ = c2.Read(ctx)
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.ID != "s-s10" {
		t.Fatalf("catch-up frame = %+v", f)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

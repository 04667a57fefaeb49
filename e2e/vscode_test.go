package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	pdapp "github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/web"
)

// The VS Code extension (editors/vscode) in a real VS Code: the .vsix the script builds,
// installed into a throwaway code-server, with a workspace open, against the real plandash. The
// extension finds plandash by itself, as `plandash url` does, from the data directory's addr and
// token files (XDG_DATA_HOME points at the test's).
func TestVSCodeExtension(t *testing.T) {
	cs := codeServer(t)
	pkg := vsix(t)

	data := t.TempDir()
	pd := filepath.Join(data, "plandash")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// code-server serves its webviews from its own loopback origin: plandash lets that frame it.
	a := serveConfig(t, ln, pdapp.Config{DataDir: pd, Config: web.Config{FrameAncestors: []string{"'self'", "http://127.0.0.1:*"}}})
	writeFile(t, filepath.Join(pd, "addr"), "http://"+a.addr+"\n")
	writeFile(t, filepath.Join(pd, "token"), token+"\n")

	ws := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	startSession(a, "here", "sess-here", "claude-code", ws+"/api")
	a.ingest(planV1("sess-here", entry{"Read the router", "high", "completed"}, entry{"Add the limiter", "medium", "in_progress"}))
	startSession(a, "away", "sess-away", "codex", "/srv/elsewhere")
	a.ingest(planV1("sess-away", entry{"A step from elsewhere", "high", "in_progress"}))

	v := startVSCode(t, cs, []string{pkg}, map[string]any{"workbench.colorTheme": "Default Dark Modern"}, "XDG_DATA_HOME="+data)
	p := openVSCode(t, v, ws)
	waitStatusWithin(p, "plandash: 0 waiting", 4*waitFor)

	// With nothing waiting, the status bar item opens this workspace's sessions.
	p.eval(`document.getElementById("plandash.plandash.plandash.waits").querySelector("a, .statusbar-item-label").click(); "ok"`)
	panel := "http://" + a.addr + "/embed"
	waitFrame(p, "this workspace's session in the panel", panel, exists(card("sess-here", "main")))
	waitFrame(p, "the panel's live socket", panel, `document.getElementById("conn").dataset.state === "live"`)
	if n, _ := frameEval(p, panel, `String(document.querySelectorAll('[data-session-id="sess-away"]').length)`); n != "0" {
		p.fail("the panel for %s shows a session from /srv/elsewhere", ws)
	}

	// Live: the plan changes in place; a new session here arrives, one from elsewhere does not.
	a.ingest(planV1("sess-here", entry{"Read the router", "high", "completed"}, entry{"Add the limiter", "medium", "completed"},
		entry{"Write the limiter's tests", "low", "in_progress"}))
	startSession(a, "away2", "sess-away-2", "codex", "/srv/another")
	a.ingest(planV1("sess-away-2", entry{"Another step from elsewhere", "high", "in_progress"}))
	startSession(a, "here2", "sess-here-2", "gemini-cli", ws)
	a.ingest(planV1("sess-here-2", entry{"Review the change", "high", "pending"}))
	waitFrame(p, "the updated plan", panel, `document.body.textContent.includes("Write the limiter's tests")`)
	waitFrame(p, "the new session of this workspace", panel, exists(card("sess-here-2", "main")))
	if n, _ := frameEval(p, panel, `String(document.querySelectorAll('[data-session-id^="sess-away"]').length)`); n != "0" {
		p.fail("a session from elsewhere arrived live in the workspace's panel")
	}

	// The theme follows VS Code's, live: dark now, light once the setting changes.
	waitFrame(p, "the dark theme in the panel", panel, `document.documentElement.dataset.theme === "dark"`)
	saveShotOf(t, p, "screenshot-panel-dark.png")
	// A narrow window: the panel beside the editor gets a few hundred pixels.
	size := evalAs[[]int64](p, `[window.innerWidth, window.innerHeight]`)
	p.do(chromedp.EmulateViewport(720, size[1]))
	waitFrame(p, "the panel at a narrow width", panel, `window.innerWidth < 400`)
	shotOf(t, p, "panel-narrow-dark.png")
	p.do(chromedp.EmulateViewport(size[0], size[1]))
	runCommand(p, "Preferences: Toggle between Light/Dark Themes")
	waitFrame(p, "the light theme in the panel", panel, `document.documentElement.dataset.theme === "light" &&
		getComputedStyle(document.documentElement).getPropertyValue("--bg").trim().toLowerCase() === "#ffffff"`)
	saveShotOf(t, p, "screenshot-panel.png")
	// The font follows too: VS Code's editor font becomes plandash's monospace one, live.
	v.setUserSetting(t, "editor.fontFamily", "'Courier New', monospace")
	waitFrame(p, "the editor font in the panel", panel, `getComputedStyle(document.documentElement).getPropertyValue("--mono").includes("Courier New")`)

	// A plan submitted for approval: the count rises, a notification offers Approve, and the
	// agent waiting at the gate gets the decision.
	began := time.Now()
	first := a.submit(approvalBody("Ship the rate limiter", "sess-here"))
	decided := a.await(first)
	waitStatus(p, "plandash: 1 waiting")
	// A report for the goal (≤ 500 ms), not an assertion: it includes this test's 50 ms polling.
	t.Logf("the wait reached the status bar %s after it was submitted", time.Since(began).Round(time.Millisecond))
	p.wait("the notification", toast("Ship the rate limiter")+` !== undefined`)
	saveShotOf(t, p, "screenshot-notification.png")
	// A click on the count opens the panel at the oldest wait: the request's own page.
	p.eval(`document.getElementById("plandash.plandash.plandash.waits").querySelector("a, .statusbar-item-label").click(); "ok"`)
	waitFrame(p, "the waiting request in the panel", "http://"+a.addr+"/embed/approvals/"+first, exists(`[data-testid="approve"]`))
	clickToastButton(p, "Ship the rate limiter", "Approve")
	if r := a.decision(decided); r.Status != approval.Approved {
		t.Fatalf("the agent at the gate got %s, want approved", r.Status)
	}
	waitStatus(p, "plandash: 0 waiting")

	// Reject asks for the reason the agent will read, then sends both.
	rejected := a.submit(approvalBody("Rewrite the router", "sess-here"))
	toReject := a.await(rejected)
	clickToastButton(p, "Rewrite the router", "Reject")
	p.wait("the reason box", exists(".quick-input-widget .quick-input-box input"))
	p.do(typeInto(".quick-input-widget .quick-input-box input", "keep the router, fix the limiter"))
	p.do(chromedp.KeyEvent(kb.Enter))
	if r := a.decision(toReject); r.Status != approval.Rejected || r.Decision.Comment != "keep the router, fix the limiter" {
		t.Fatalf("the agent at the gate got %s %q, want rejected with the reason", r.Status, r.Decision.Comment)
	}
	waitStatus(p, "plandash: 0 waiting")

	// VS Code shows only a few toasts at once and queues the rest in its notification center:
	// clear the answers' own messages so the next notification is a toast again.
	runCommand(p, "Notifications: Clear All Notifications")
	p.wait("no toasts left", `document.querySelectorAll(".notification-toast").length === 0`)

	// Claude Code asks a question (AskUserQuestion, held by its hook): the notification shows it
	// whole, with its options as buttons; the one clicked reaches the hook as the answer.
	asked := postAsync(a, "/api/v1/hooks/claude", `{"session_id":"asks-1","hook_event_name":"PreToolUse","cwd":`+js(ws)+`,
		"tool_name":"AskUserQuestion","tool_use_id":"toolu_1","tool_input":{"questions":[{"question":"Which database for the limiter?",
		"header":"Store","multiSelect":false,"options":[{"label":"Redis","description":"shared"},{"label":"In memory","description":"per process"}]}]}}`)
	clickToastButton(p, "Which database for the limiter?", "In memory")
	select {
	case got := <-asked:
		if got.err != nil || !strings.Contains(got.body, `"answers":{"Which database for the limiter?":"In memory"}`) {
			t.Fatalf("Claude Code's hook got %q (%v), want the answer In memory", got.body, got.err)
		}
	case <-time.After(waitFor):
		p.fail("the question's hook got no answer")
	}
	waitStatus(p, "plandash: 0 waiting")

	runCommand(p, "Notifications: Clear All Notifications")
	p.wait("no toasts left", `document.querySelectorAll(".notification-toast").length === 0`)

	// A Claude Code session of this workspace ends its turn: it waits for the next prompt. That
	// counts, but raises no notification (plandash.notifyInput is off by default).
	claudeHook(a, `{"session_id":"idle-1","hook_event_name":"Stop","cwd":`+js(ws)+`,"last_assistant_message":"Done: the limiter is in."}`)
	waitStatus(p, "plandash: 1 waiting")

	// A wait of a session elsewhere counts in the status bar but raises no notification here
	// (plandash.notifications is "workspace"); the next one of this workspace does, after both.
	away := a.submit(approvalBody("Rotate the staging keys", "sess-away"))
	waitStatus(p, "plandash: 2 waiting")

	// Decided in the browser first: a late Approve in VS Code is told so, not shown an error.
	second := a.submit(approvalBody("Drop the old sessions table", "sess-here"))
	p.wait("the second notification", toast("Drop the old sessions table")+` !== undefined`)
	if evalAs[bool](p, toast("Rotate the staging keys")+` !== undefined`) {
		p.fail("a wait of a session outside the workspace raised a notification")
	}
	if evalAs[bool](p, toast("waits for your next prompt")+` !== undefined`) {
		p.fail("a session waiting for its next prompt raised a notification")
	}
	claudeHook(a, `{"session_id":"idle-1","hook_event_name":"UserPromptSubmit","cwd":`+js(ws)+`,"prompt":"now the docs"}`)
	a.gateAPI("POST", "/api/v1/approvals/"+away+"/decision", `{"action":"approve"}`)
	b := openPage(t, a, "/approvals/"+second)
	b.do(typeInto(`[data-testid="decide-comment"]`, "not this week"))
	b.do(click(`[data-testid="reject"]`))
	b.wait("the decision in the browser", attrIs(`[data-testid="approval-panel"]`, "data-status", "rejected"))
	waitStatus(p, "plandash: 0 waiting")
	clickToastButton(p, "Drop the old sessions table", "Approve")
	p.wait("'already decided'", toast("already decided")+` !== undefined`)
	if n := evalAs[int](p, `document.querySelectorAll(".notification-toast .codicon-error").length`); n != 0 {
		p.fail("VS Code shows %d error notifications", n)
	}
	if r := a.request(second); r.Status != approval.Rejected {
		t.Fatalf("the late Approve changed the decision: %s", r.Status)
	}

	// The activation time as VS Code reports it: a report, not an assertion (TestVSCodeActivation
	// measures it against an empty extension's).
	t.Logf("VS Code reports plandash's activation: %s", activationFigure(p, "plandash"))
}

// openVSCode opens the workbench on folder in a fresh browser context.
func openVSCode(t *testing.T, v *vsCode, folder string) *page {
	t.Helper()
	p, cancel := openVSCodeTab(t, v, folder)
	t.Cleanup(cancel)
	return p
}

// openVSCodeTab opens the workbench on folder in a fresh browser context, until cancel: the
// window's extension host ends with it.
func openVSCodeTab(t *testing.T, v *vsCode, folder string) (*page, func()) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(startBrowser(t), chromedp.WithNewBrowserContext())
	p := &page{t: t, ctx: ctx, name: strings.NewReplacer("/", "_").Replace(t.Name())}
	if _, err := chromedp.Run(ctx, chromedp.Navigate(v.base+"/?folder="+folder)); err != nil {
		cancel()
		t.Fatalf("open VS Code: %v", err)
	}
	p.wait("the workbench", exists(".monaco-workbench .part.statusbar"))
	return p, cancel
}

// posted is the answer to a request postAsync made.
type posted struct {
	body string
	err  error
}

// postAsync posts body to path with the admin token and delivers the answer later: for a hook
// that holds the request until a person answers.
func postAsync(a *app, path, body string) <-chan posted {
	out := make(chan posted, 1)
	go func() {
		req, err := http.NewRequest("POST", a.url(path), strings.NewReader(body))
		if err != nil {
			out <- posted{err: err}
			return
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
		if err != nil {
			out <- posted{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s", resp.Status)
		}
		out <- posted{body: string(b), err: err}
	}()
	return out
}

// claudeHook posts one Claude Code hook event, as `plandash hook claude` does.
func claudeHook(a *app, event string) {
	a.t.Helper()
	if code, body := a.gateAPI("POST", "/api/v1/hooks/claude", event); code >= 300 {
		a.t.Fatalf("the Claude Code hook event was refused: %d %s", code, body)
	}
}

// approvalBody is a short plan for the gate, of a session: the whole of it fits a notification.
func approvalBody(title, session string) string {
	return fmt.Sprintf(`{"title":%s,"agent":"claude","sessionId":%s,"plan":{"type":"items","entries":[
		{"content":"Add the middleware","priority":"high","status":"pending"},
		{"content":"Run the tests","priority":"medium","status":"pending"}]}}`, js(title), js(session))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// shotOf saves the whole workbench into the test's artifacts only.
func shotOf(t *testing.T, p *page, name string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	saveShot(t, name, png)
}

// saveShotOf saves the whole workbench for people to look at: into the test's artifacts, and
// into editors/vscode/media (the extension's README shows them) when PLANDASH_DOCS_SCREENSHOTS=1.
func saveShotOf(t *testing.T, p *page, name string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	saveShot(t, name, png)
	if os.Getenv("PLANDASH_DOCS_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join("..", "editors", "vscode", "media", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// activationFigure is VS Code's activation figure for one extension.
func activationFigure(p *page, name string) string {
	got, _ := activationTimes(p, name)
	return got[name]
}

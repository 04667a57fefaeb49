package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	pdapp "github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/web"
)

// Desktop VS Code serves its webviews from vscode-webview://, another site than plandash's
// loopback address, so plandash's cookie is a third-party one there; a browser that blocks those
// keeps none. Here VS Code runs on 127.0.0.1 and plandash on localhost (another site), in a tab
// that blocks third-party cookies: the panel must go live on the token it carries, stay signed
// in as it moves between views (the scope switch, a link inside plandash's page), and decide a
// request with the page's own form.
func TestVSCodePanelWithoutThirdPartyCookies(t *testing.T) {
	cs := codeServer(t)
	pkg := vsix(t)
	data := t.TempDir()
	pd := filepath.Join(data, "plandash")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := serveConfig(t, ln, pdapp.Config{DataDir: pd, Config: web.Config{FrameAncestors: []string{"'self'", "http://127.0.0.1:*"}}})
	port := a.addr[strings.LastIndex(a.addr, ":")+1:]
	server := "http://localhost:" + port
	writeFile(t, filepath.Join(pd, "addr"), server+"\n")
	writeFile(t, filepath.Join(pd, "token"), token+"\n")

	ws := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	startSession(a, "here", "sess-here", "claude-code", ws)
	a.ingest(planV1("sess-here", entry{"Read the router", "high", "in_progress"}))
	startSession(a, "away", "sess-away", "codex", "/srv/elsewhere")
	a.ingest(planV1("sess-away", entry{"A step from elsewhere", "high", "in_progress"}))

	v := startVSCode(t, cs, []string{pkg}, nil, "XDG_DATA_HOME="+data)
	ctx, cancel := chromedp.NewContext(startBrowser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetCookieControls, network.SetCookieControlsParams{EnableThirdPartyCookieRestriction: true}); err != nil {
		t.Fatalf("block third-party cookies: %v", err)
	}
	p := &page{t: t, ctx: ctx, name: t.Name()}
	p.do(chromedp.Navigate(v.base + "/?folder=" + ws))
	waitStatusWithin(p, "plandash: 0 waiting", 4*waitFor)

	runCommand(p, "plandash: Open This Workspace's Sessions")
	panel := server + "/embed"
	live := `document.getElementById("conn") && document.getElementById("conn").dataset.state === "live"`
	waitFrame(p, "this workspace's session in the panel", panel, exists(card("sess-here", "main")))
	waitFrame(p, "the panel live on its own token", panel, live+` && sessionStorage.getItem("plandash.token") !== null`)

	// The scope switch loads another view with the token again.
	selectScope(p, v, "/embed")
	waitFrame(p, "all sessions after the switch", panel, exists(card("sess-away", "main"))+` && `+live)

	// A link inside plandash's page: the session's own view, still signed in.
	if _, ok := frameEval(p, panel, `document.querySelector('[data-session-id="sess-here"] [data-testid="session-link"]').click(), "ok"`); !ok {
		p.fail("no link to the session in the panel")
	}
	waitFrame(p, "the session's view, live", server+"/embed/sessions/", `document.body.textContent.includes("Read the router") && `+live)
	shotOf(t, p, "panel-token-mode.png")

	// Deciding in the panel: the request's page, its Approve, the agent at the gate told.
	id := a.submit(approvalBody("Ship the limiter", "sess-here"))
	decided := a.await(id)
	waitStatus(p, "plandash: 1 waiting")
	p.eval(`document.getElementById("plandash.plandash.plandash.waits").querySelector("a, .statusbar-item-label").click(); "ok"`)
	page := server + "/embed/approvals/" + id
	waitFrame(p, "the request in the panel", page, exists(`[data-testid="approve"]`)+` && `+live)
	if _, ok := frameEval(p, page, `document.querySelector('[data-testid="approve"]').click(), "ok"`); !ok {
		p.fail("no Approve in the panel")
	}
	if r := a.decision(decided); r.Status != approval.Approved {
		t.Fatalf("the agent at the gate got %s, want approved", r.Status)
	}
	waitFrame(p, "the decision in the panel", page, attrIs(`[data-testid="approval-panel"]`, "data-status", "approved"))
	waitStatus(p, "plandash: 0 waiting")
}

// selectScope picks the panel's scope switch option whose value is path. The switch is in the
// webview's own page, a frame of code-server's origin (among others of that origin).
func selectScope(p *page, v *vsCode, path string) {
	p.t.Helper()
	expr := `(function(){ const s = document.getElementById("scope"); if (!s) return "none";
		s.value = ` + js(path) + `; s.dispatchEvent(new Event("change")); return "ok"; })()`
	deadline := time.Now().Add(waitFor)
	for {
		if got, _ := frameEvalEach(p, v.base, expr); got == "ok" {
			return
		}
		if time.Now().After(deadline) {
			p.fail("no scope switch in the panel")
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
}

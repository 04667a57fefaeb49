package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pdapp "github.com/plandash/plandash/internal/app"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/plandash/plandash/internal/web"
)

// startEmbedApp starts plandash on localhost with the given frame ancestors.
func startEmbedApp(t *testing.T, ancestors ...string) *app {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := serveConfig(t, ln, pdapp.Config{Config: web.Config{FrameAncestors: ancestors}})
	// Pages are addressed as localhost:PORT so a host on another port is another origin of the
	// same site, which keeps the frame in-process where DevTools queries can reach it.
	_, port, _ := net.SplitHostPort(a.addr)
	a.addr = "localhost:" + port
	return a
}

// hostPage serves a page from another origin that frames src at the given width and records
// every message the frame posts in window.msgs.
func hostPage(t *testing.T, host, src string, width int) string {
	t.Helper()
	html := fmt.Sprintf(`<!DOCTYPE html><html><body style="margin:0">
<iframe id="panel" src=%q style="width:%dpx;height:900px;border:0"></iframe>
<script>
window.msgs = [];
window.addEventListener("message", function (e) { window.msgs.push({origin: e.origin, data: e.data}); });
function send(msg) { document.getElementById("panel").contentWindow.postMessage(msg, "*"); }
</script></body></html>`, src, width)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return "http://" + host + ":" + port + "/"
}

// hostTab opens a host page in a fresh browser context.
func hostTab(t *testing.T, url string) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(startBrowser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx, name: strings.NewReplacer("/", "_").Replace(t.Name())}
	// The first action runs on the tab's own context: a timeout there would close the tab.
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open host page: %v", err)
	}
	return p
}

// inFrame waits until sel matches inside the panel iframe and returns its text.
func (p *page) inFrame(what, sel string) string {
	p.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		frames, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("#panel"), chromedp.AtLeast(0)))
		if err == nil && len(frames) == 1 {
			nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS(sel), chromedp.AtLeast(0), chromedp.FromNode(frames[0])))
			if err == nil && len(nodes) > 0 {
				text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.FromNode(frames[0])))
				cancel()
				if err == nil {
					return text
				}
				// The panel navigated between finding and reading (a form's redirect, a live
				// swap): look again in the document it shows now.
				if time.Now().After(deadline) {
					p.fail("read %s in the iframe: %v", sel, err)
				}
				time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
				continue
			}
		}
		cancel()
		if time.Now().After(deadline) {
			p.fail("timed out waiting in the iframe for %s (%s)", what, sel)
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
}

func TestEmbedInHostPage(t *testing.T) {
	a := startEmbedApp(t, "http://localhost:*")
	startSession(a, "embed", "sess-embed", "claude-code", "/home/dev/shop")
	a.ingest(planV1("sess-embed", entry{"Read the router", "high", "completed"}, entry{"Add the limiter", "medium", "in_progress"}))
	host := hostTab(t, hostPage(t, "localhost", a.url("/embed#token="+token), 300))

	// The frame traded the fragment token for a cookie and went live.
	host.inFrame("the plan card", card("sess-embed", "main"))
	host.inFrame("a live socket", `#conn[data-state="live"]`)
	host.wait("the frame's ready message", `window.msgs.some(m => m.data.type === "plandash:ready")`)
	host.wait("the pending count", `window.msgs.some(m => m.data.type === "plandash:pending" && m.data.pending === 0)`)
	if o := host.eval(`window.msgs[0].origin`); o != "http://"+a.addr {
		t.Errorf("messages came from %q", o)
	}

	// Live: a new plan shows without reloading the frame.
	a.ingest(planMarkdown("sess-embed", "notes", "# Notes\n- [ ] check"))
	host.inFrame("the live markdown plan", card("sess-embed", "notes")+" h1")

	// Theme messages restyle the frame.
	host.eval(`send({type: "plandash:theme", theme: "dark"}); "ok"`)
	host.inFrame("the dark theme", `html[data-theme="dark"]`)
	shot(t, host, "embed-300-dark.png")
	host.eval(`send({type: "plandash:theme", theme: "light", vars: {"--vscode-focusBorder": "rgb(200, 0, 0)"}}); "ok"`)
	host.inFrame("the light theme", `html[data-theme="light"]`)
	// VS Code's focus border becomes plandash's accent colour.
	host.inFrame("the host's colour as the accent", `html[style*="--accent: rgb(200, 0, 0)"]`)
	shot(t, host, "embed-300-light.png")
}

func TestEmbedApprovals(t *testing.T) {
	a := startEmbedApp(t, "http://localhost:*")
	host := hostTab(t, hostPage(t, "localhost", a.url("/embed/approvals#token="+token), 320))
	host.inFrame("the empty inbox", `[data-testid="approvals-inbox"]`)
	host.wait("the pending count 0", `window.msgs.some(m => m.data.type === "plandash:pending" && m.data.pending === 0)`)

	// A request arrives: the frame shows it live and tells the host.
	var created struct{ ID string }
	created.ID = a.submit(`{"title":"Deploy the rate limiter","agent":"claude-code",` +
		`"plan":{"type":"items","entries":[{"content":"Roll out to 5%","priority":"high","status":"pending"}]}}`)
	host.inFrame("the request", `[data-testid="approval-row"]`)
	host.wait("the host to hear of it", `window.msgs.some(m => m.data.type === "plandash:approval-arrived" && m.data.pending === 1)`)

	// A cross-site form post, as another site would send it, is refused.
	host.eval(`(function () {
		var f = document.createElement("form");
		f.method = "post"; f.target = "sink";
		f.action = document.getElementById("panel").src.split("/embed")[0] + "/approvals/` + created.ID + `/decide";
		var a = document.createElement("input"); a.name = "action"; a.value = "approve"; f.append(a);
		var i = document.createElement("iframe"); i.name = "sink"; i.id = "sink"; document.body.append(i);
		i.addEventListener("load", function () { window.sinkLoaded = true; });
		document.body.append(f); f.submit(); return "ok"; })()`)
	host.wait("the cross-site post to be answered", `window.sinkLoaded === true`)
	if st := approvalStatus(t, a, created.ID); st != "pending" {
		t.Fatalf("a cross-site form post decided the request: %s", st)
	}

	// Approving from inside the panel works and keeps the panel's view.
	host.clickInFrame(`[data-testid="show-plan"]`)
	host.inFrame("the plan shown", `[data-testid="row-plan"] [data-testid="plan-card"]`)
	host.clickInFrame(`[data-testid="quick-approve"]`)
	host.inFrame("the decision", `[data-testid="approvals-empty"]`)
	host.wait("the host to hear the count drop", `window.msgs.some(m => m.data.type === "plandash:pending" && m.data.pending === 0 && window.msgs.indexOf(m) > 2)`)
	if loc := host.frameURL(); !strings.HasSuffix(loc, "/embed/approvals") {
		t.Fatalf("after deciding, the panel shows %s", loc)
	}

	// A request opened from the panel stays in the panel, and is decided there.
	created.ID = a.submit(`{"title":"Rotate the keys","plan":{"type":"markdown","markdown":"# Rotate"}}`)
	host.inFrame("the second request", `[data-testid="approval-title"]`)
	host.clickInFrame(`[data-testid="approval-title"]`)
	host.inFrame("the request's page", `[data-testid="decide-form"]`)
	if loc := host.frameURL(); !strings.HasSuffix(loc, "/embed/approvals/"+created.ID) {
		t.Fatalf("the request opened at %s, outside the panel's views", loc)
	}
	host.clickInFrame(`[data-testid="approve"]`)
	host.inFrame("the decision on the panel's page", `[data-testid="decision-status"]`)
	if st := approvalStatus(t, a, created.ID); st != "approved" {
		t.Fatalf("approving from the panel's request page left it %s", st)
	}
	if loc := host.frameURL(); !strings.HasSuffix(loc, "/embed/approvals/"+created.ID) {
		t.Fatalf("after deciding, the panel shows %s", loc)
	}
}

// Where the browser keeps no third-party cookies, the panel carries the token itself: page
// fetches send it as a header and the socket as a subprotocol.
func TestEmbedWithoutThirdPartyCookies(t *testing.T) {
	a := startEmbedApp(t, "http://127.0.0.1:*")
	a.ingest(planV1("sess-3p", entry{"Read the router", "high", "completed"}))
	// The host runs on 127.0.0.1 and plandash on localhost: another site, so its cookies are
	// third-party ones, and this tab blocks those.
	ctx, cancel := chromedp.NewContext(startBrowser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetCookieControls, network.SetCookieControlsParams{EnableThirdPartyCookieRestriction: true}); err != nil {
		t.Fatalf("block third-party cookies: %v", err)
	}
	host := &page{t: t, ctx: ctx, name: "TestEmbedWithoutThirdPartyCookies"}
	host.do(chromedp.Navigate(hostPage(t, "127.0.0.1", a.url("/embed#token="+token), 300)))
	host.wait("the panel to go live on its own token", `window.msgs.some(m => m.data.type === "plandash:connection" && m.data.state === "live" && m.data.via === "token")`)
	host.wait("the panel's pending count", `window.msgs.some(m => m.data.type === "plandash:pending")`)
}

func TestEmbedRefusedByOtherHosts(t *testing.T) {
	// Only a host on port 1 may embed; the host page below runs on another port.
	a := startEmbedApp(t, "http://localhost:1")
	host := hostTab(t, hostPage(t, "localhost", a.url("/embed#token="+token), 300))
	host.wait("the frame to finish loading", `document.readyState === "complete"`)
	deadline := time.Now().Add(waitFor)
	for {
		tree, err := chromedp.Call(host.ctx, cdppage.GetFrameTree, cdp.Empty{})
		if err == nil && len(tree.FrameTree.ChildFrames) == 1 && strings.HasPrefix(tree.FrameTree.ChildFrames[0].Frame.URL, "chrome-error:") {
			break
		}
		if time.Now().After(deadline) {
			var urls []string
			if tree.FrameTree != nil {
				for _, c := range tree.FrameTree.ChildFrames {
					urls = append(urls, c.Frame.URL+" unreachable="+c.Frame.UnreachableURL)
				}
			}
			host.fail("the frame was not refused: child frames %q", urls)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := evalAs[int](host, `window.msgs.length`); n != 0 {
		t.Fatalf("a refused frame still posted %d messages", n)
	}
}

// approvalStatus reads a request's status through the API.
func approvalStatus(t *testing.T, a *app, id string) string {
	t.Helper()
	return string(a.request(id).Status)
}

// clickInFrame clicks the first element matching sel inside the panel iframe.
func (p *page) clickInFrame(sel string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitFor)
	defer cancel()
	frames, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("#panel")))
	if err != nil || len(frames) == 0 {
		p.fail("no panel iframe: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.FromNode(frames[0]))); err != nil {
		p.fail("click %s in the panel: %v", sel, err)
	}
}

// frameURL is the address the panel iframe shows now.
func (p *page) frameURL() string {
	p.t.Helper()
	tree, err := chromedp.Call(p.ctx, cdppage.GetFrameTree, cdp.Empty{})
	if err != nil || tree.FrameTree == nil || len(tree.FrameTree.ChildFrames) == 0 {
		p.fail("no child frame: %v", err)
	}
	return tree.FrameTree.ChildFrames[0].Frame.URL
}

// shot saves a screenshot of the panel for people to look at: into the test's artifacts, and
// into docs/ (kept in the repository, shown in the README) when PLANDASH_DOCS_SCREENSHOTS=1.
func shot(t *testing.T, p *page, name string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.Screenshot(chromedp.CSS("#panel")))
	if err != nil {
		t.Fatal(err)
	}
	saveShot(t, name, png)
	if os.Getenv("PLANDASH_DOCS_SCREENSHOTS") == "1" {
		if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package e2e

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	pdapp "github.com/plandash/plandash/internal/app"
)

// A page comes back within a second of the server answering again after a restart on the same
// port, and while the server is down it says so plainly. Both times are taken in the page, on
// its own clock: when a probe of /healthz (polled every 10 ms from the page) first got an
// answer, and when the socket opened.
func TestReconnectWithinASecondOfTheServer(t *testing.T) {
	dir := t.TempDir()
	a := startApp(t, dir, "127.0.0.1:0")
	a.ingest(planV1("s1", entry{"One", "high", "in_progress"}))
	p := openPage(t, a, "/")
	p.wait("the plan", exists(card("s1", "main")))
	p.waitConn("live")
	p.markNoReload()

	a.stop()
	p.waitConn("reconnecting")
	banner := `[data-testid="offline-banner"]`
	p.wait("the banner saying the server is down", visible(banner)+
		` && document.querySelector(`+js(banner)+`).textContent.includes("plandash is not answering")`)

	png, err := chromedp.Run(p.ctx, chromedp.Screenshot(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	saveShot(t, "reconnect-banner.png", png)

	// The probe starts before the server does, so its first answer is when the page could
	// first have reached the new server.
	p.eval(`window.__probe = { answered: 0 };
		(function poll() {
			fetch("/healthz", { cache: "no-store" })
				.then((r) => { if (r.ok) window.__probe.answered = performance.now(); else setTimeout(poll, 10); })
				.catch(() => setTimeout(poll, 10));
		})(); "ok"`)
	b := startAppRetryPort(t, dir, a.addr)
	if b.addr != a.addr {
		t.Fatalf("restarted on %s, want %s", b.addr, a.addr)
	}
	p.waitConn("live")
	p.wait("the probe's answer", `window.__probe.answered > 0`)
	answered := evalAs[float64](p, `window.__probe.answered`)
	live := evalAs[float64](p, `plandash.times().liveAt`)
	t.Logf("the page was live %.0f ms after the server first answered it", live-answered)
	if live-answered > 1000 {
		p.fail("the page was live %.0f ms after the server answered, want within 1000 ms", live-answered)
	}
	p.wait("the banner gone", `document.querySelector(`+js(banner)+`).hidden`)
	p.requireNoReload()

	// And the page is live for real: an update reaches it.
	b.ingest(planV1("s1", entry{"One", "high", "completed"}))
	p.wait("an update after the restart", attrIs(card("s1", "main"), "data-revision", "2"))
}

// A server that answers but refuses the page (it came back with another token) is told apart
// from a server that is down: the banner says to reload, and the page stops knocking fast.
func TestReconnectToAServerThatRefusesThePage(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	p.markNoReload()
	a.stop()
	p.waitConn("reconnecting")

	// The same port, another token: the page's cookie no longer opens the socket.
	var ln net.Listener
	deadline := time.Now().Add(waitFor)
	for {
		var err error
		if ln, err = net.Listen("tcp", a.addr); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stopped server's address %s stayed taken: %v", a.addr, err)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := pdapp.Config{DataDir: t.TempDir(), Token: "another-token"}
	cfg.Log = testLogger(t)
	srv, err := pdapp.Open(ctx, cfg)
	if err != nil {
		cancel()
		ln.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(2 * waitFor):
			t.Errorf("the server with another token did not stop")
		}
	})

	banner := `[data-testid="offline-banner"]`
	p.wait("the banner saying the page is refused", visible(banner)+
		` && document.querySelector(`+js(banner)+`).textContent.includes("refuses this page")`)
	if got := p.eval(`document.getElementById("conn").dataset.state`); got != "reconnecting" {
		p.fail("connection state %q with the server refusing the page, want reconnecting", got)
	}
	p.requireNoReload()
}

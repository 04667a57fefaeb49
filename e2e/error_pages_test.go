package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// openSignedOut opens path in a fresh browser context without the token.
func openSignedOut(t *testing.T, a *app, path string) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(startBrowser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The first run binds the tab to ctx: with a shorter-lived context it would close with it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	p := &page{t: t, ctx: ctx, name: strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())}
	p.do(chromedp.Navigate(a.url(path)))
	return p
}

// A browser meets errors as pages of the site, and a locked dashboard takes the pasted token:
// a wrong one is refused on the page, the right one lands on the page the link pointed at. The
// pages pass axe in both themes.
func TestErrorAndLockedPagesInTheBrowser(t *testing.T) {
	src := axeSource(t)
	a := startApp(t, t.TempDir(), "127.0.0.1:0")

	t.Run("not found", func(t *testing.T) {
		p := openPage(t, a, "/sessions/nope")
		p.wait("the error page", exists(`[data-testid="error"][data-status="404"]`))
		if n := count(p, `[data-testid="error-home"]`); n != 1 {
			p.fail("the error page has %d ways home, want 1", n)
		}
		checkA11y(p, src, "404 page")
		p.do(click(`[data-testid="error-home"]`))
		p.wait("the overview", `location.pathname === "/" && document.querySelector("[data-testid=error]") === null`)
	})

	t.Run("locked", func(t *testing.T) {
		p := openSignedOut(t, a, "/approvals?view=all")
		p.wait("the locked page", exists(`[data-testid="token-form"]`))
		checkA11y(p, src, "locked page")
		send := func(tok string) {
			p.do(chromedp.SetValue(chromedp.CSS(`[data-testid="token-input"]`), tok),
				click(`[data-testid="token-submit"]`))
		}
		send("not-the-token")
		p.wait("the refusal", `document.querySelector("[data-testid=locked-why]").textContent.includes("not this server's token")`)
		send(token)
		p.wait("the page the link pointed at", `location.pathname === "/approvals" && document.querySelector("[data-testid=locked]") === null`)
		p.waitConn("live")
		ctx, cancel := context.WithCancel(p.ctx)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Navigate(a.url("/sessions"))); err != nil {
			t.Fatal(err)
		}
		p.waitConn("live") // the cookie holds: another page opens without the token
	})
}

package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// At a phone's width the overview's five menus fold behind one "Filters" button under the search
// box, unfold on a tap, and open by themselves (with the count) when a filter is set; on a
// desktop the button is not there and the menus are.
func TestOverviewFiltersFoldOnAPhone(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	startSession(a, "s", "fold-1", "claude-code", "/home/dev/app")
	a.ingest(planV1("fold-1", entry{"Write the migration", "high", "pending"}))
	// shown is a JavaScript expression: whether the element takes up room on the page.
	shown := func(sel string) string {
		return `(() => { const e = document.querySelector(` + js(sel) + `); return !!e && e.getClientRects().length > 0; })()`
	}
	p := openPage(t, a, "/")
	p.do(chromedp.EmulateViewport(375, 800))
	p.wait("the layout at 375 px", `document.documentElement.clientWidth === 375`)
	p.wait("the Filters button", shown(`[data-testid="filters-more"]`))
	if evalAs[bool](p, shown(`[data-testid="filter-agent"]`)) || !evalAs[bool](p, shown(`[data-testid="filter-q"]`)) {
		p.fail("at 375 px the menus show before the button is tapped (or the search box is hidden)")
	}
	p.do(click(`[data-testid="filters-more"]`))
	p.wait("the menus to unfold", shown(`[data-testid="filter-agent"]`)+` && `+shown(`[data-testid="filter-state"]`))
	if png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot()); err == nil {
		saveShot(t, "overview-filters-375-unfolded.png", png)
	}

	p.do(chromedp.Navigate(a.url("/?state=active")))
	p.waitConn("live")
	p.wait("a set filter keeps the menus open", shown(`[data-testid="filter-state"]`))
	if got := p.eval(`document.querySelector('[data-testid="filters-more"]').textContent.replace(/\s+/g, " ").trim()`); got != "Filters (1)" {
		p.fail("the button says %q, want \"Filters (1)\"", got)
	}

	p.do(chromedp.EmulateViewport(1280, 800))
	p.wait("the layout at 1280 px", `document.documentElement.clientWidth === 1280`)
	p.wait("the menus on a desktop", shown(`[data-testid="filter-agent"]`)+` && !`+shown(`[data-testid="filters-more"]`))
}

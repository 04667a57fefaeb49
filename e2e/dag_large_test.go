package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// bigDAGPlan is a 200-call tool-call plan in layers of 14, each call reading one or two outputs
// of the layer above (now and then two above), with one of each problem the diagram marks: a
// cycle (c150 ↔ c165), an unresolved read (c120) and a double writer (c90, c91).
func bigDAGPlan(session string) string {
	r := rand.New(rand.NewPCG(3, 1))
	verbs := []string{"Fetch", "Parse", "Summarize", "Index", "Lint", "Compile", "Test", "Render", "Upload", "Classify"}
	nouns := []string{"profile", "report", "invoice", "module", "page", "dataset", "image", "config", "ticket", "schema"}
	const n, width = 200, 14
	calls := make([]map[string]any, n)
	out := func(i int) string { return fmt.Sprintf("†state.%s%d", nouns[i%len(nouns)], i) }
	for i := range calls {
		layer := i / width
		status := "pending"
		switch {
		case layer < 4:
			status = "completed"
		case layer == 4:
			status = "in_progress"
		}
		c := map[string]any{
			"_id": fmt.Sprintf("c%d", i), "_tool": strings.ToLower(verbs[r.IntN(len(verbs))]) + "_" + nouns[r.IntN(len(nouns))],
			"_title": fmt.Sprintf("%s %s %d", verbs[r.IntN(len(verbs))], nouns[r.IntN(len(nouns))], i), "_outputPath": out(i), "_status": status,
		}
		for k := range 1 + r.IntN(2) {
			if layer == 0 {
				break
			}
			from := layer - 1
			if layer > 1 && r.IntN(4) == 0 {
				from = layer - 2
			}
			c[fmt.Sprintf("in%d", k)] = out(from*width + r.IntN(width))
		}
		calls[i] = c
	}
	calls[150]["loop"], calls[165]["back"] = out(165), out(150)
	calls[120]["missing"] = "†state.nowhere.to.be.found"
	calls[90]["_outputPath"] = out(91)
	msg := map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": session,
		"update": map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "_dag", "planId": "big", "calls": calls}}}}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err) // maps of strings and numbers always marshal
	}
	return string(b)
}

// minTextPx is the smallest rendered size of the diagram's visible text of the given class, in
// CSS pixels: the computed font size times the svg's scale on screen.
func minTextPx(p *page, class string) float64 {
	p.t.Helper()
	return evalAs[float64](p, `(() => {
		const svg = document.querySelector('[data-testid="dag-svg"]');
		const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
		const sizes = [...svg.querySelectorAll(`+js("."+class)+`)].filter(t => t.getClientRects().length > 0)
			.map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
		return sizes.length ? Math.min(...sizes) : 1000;
	})()`)
}

// A 200-call plan stays readable at 320 and 1280 px: text never below 11 px, the canvas
// scrolls instead, the zoom controls stop at readable bounds, find scrolls to a node, and a
// node's details open beside the graph when wide and over it when narrow.
func TestDAGLargeReadableAtEveryWidth(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	a.ingest(bigDAGPlan("sess-big"))
	p := openPage(t, a, "/sessions/sess-big")
	const fig = `[data-testid="dag-diagram"]`
	zoom := func() float64 { return evalAs[float64](p, `+document.querySelector(`+js(fig)+`).dataset.zoom`) }
	readable := func(when string) {
		t.Helper()
		if px := minTextPx(p, "dag-node-label"); px < 10.9 {
			p.fail("%s: node labels render at %.1f px", when, px)
		}
		if px := minTextPx(p, "dag-edge-label"); px < 10.9 {
			p.fail("%s: edge labels render at %.1f px", when, px)
		}
	}
	for _, width := range []int64{320, 1280} {
		p.do(chromedp.EmulateViewport(width, 900))
		p.wait(fmt.Sprintf("the layout at %d px", width), fmt.Sprintf(`document.documentElement.clientWidth === %d && document.querySelectorAll('[data-testid="dag-node"]').length === 200`, width))
		p.eval(`document.querySelector(` + js(fig) + `).scrollIntoView(); "ok"`)
		readable(fmt.Sprintf("at %d px", width))
		if sw, cw := evalAs[int](p, `document.documentElement.scrollWidth`), evalAs[int](p, `document.documentElement.clientWidth`); sw > cw {
			p.fail("at %d px the page is %d px wide", width, sw)
		}
		if !evalAs[bool](p, `(c => c.scrollWidth > c.clientWidth && c.scrollHeight > c.clientHeight)(document.querySelector('[data-testid="dag-canvas"]'))`) {
			p.fail("at %d px the 200-call graph does not scroll inside its canvas", width)
		}
		if h, vh := evalAs[float64](p, `document.querySelector('[data-testid="dag-canvas"]').getBoundingClientRect().height`), evalAs[float64](p, `innerHeight`); h > 0.8*vh {
			p.fail("at %d px the canvas is %.0f px tall in a %.0f px window", width, h, vh)
		}
		dagShot(t, p, fig, fmt.Sprintf("screenshot-dag-200-%d.png", width))
	}

	// Zoom: out stops where text would fall under 11 px, in stops at the maximum, reset is 100%.
	for range 12 {
		p.do(click(`[data-testid="dag-zoom-out"]:not([disabled])`))
		if evalAs[bool](p, `document.querySelector('[data-testid="dag-zoom-out"]').disabled`) {
			break
		}
	}
	if !evalAs[bool](p, `document.querySelector('[data-testid="dag-zoom-out"]').disabled`) {
		p.fail("zooming out never reaches a bound (zoom %.2f)", zoom())
	}
	if px := minTextPx(p, "dag-node-label"); px < 10.9 {
		p.fail("zoomed out as far as it goes, node labels render at %.1f px", px)
	}
	readable("zoomed out")
	p.do(click(`[data-testid="dag-fit"]`))
	readable("after Fit")
	before := zoom()
	p.do(click(`[data-testid="dag-zoom-in"]`))
	if after := zoom(); after <= before {
		p.fail("zoom in went from %.2f to %.2f", before, after)
	}
	if got := p.eval(`document.querySelector('[data-testid="dag-zoom-level"]').textContent`); got != fmt.Sprintf("%d%%", int(zoom()*100+0.5)) {
		p.fail("the zoom level shows %q at zoom %.2f", got, zoom())
	}
	for range 20 {
		if evalAs[bool](p, `document.querySelector('[data-testid="dag-zoom-in"]').disabled`) {
			break
		}
		p.do(click(`[data-testid="dag-zoom-in"]`))
	}
	if z := zoom(); z > 3.01 || !evalAs[bool](p, `document.querySelector('[data-testid="dag-zoom-in"]').disabled`) {
		p.fail("zooming in is not bounded (zoom %.2f)", z)
	}
	p.do(click(`[data-testid="dag-reset"]`))
	if got := p.eval(`document.querySelector('[data-testid="dag-zoom-level"]').textContent`); got != "100%" || zoom() != 1 {
		p.fail("after Reset the zoom is %q", got)
	}

	// The keyboard does the same on the focused canvas: + zooms in, 0 resets.
	p.do(chromedp.Focus(chromedp.CSS(`[data-testid="dag-canvas"]`)), key("+"))
	if z := zoom(); z <= 1 {
		p.fail("+ on the canvas left the zoom at %.2f", z)
	}
	p.do(key("0"))
	if z := zoom(); z != 1 {
		p.fail("0 on the canvas left the zoom at %.2f", z)
	}

	// Find: typing marks the matches and scrolls the first into the canvas; Enter goes on.
	inCanvas := `((n, c) => { const r = n.getBoundingClientRect(), b = c.getBoundingClientRect();
		return r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom; })(
		document.querySelector('[data-testid="dag-node"].dag-match-current'), document.querySelector('[data-testid="dag-canvas"]'))`
	p.do(typeInto(`[data-testid="dag-find"]`, "19"))
	total := evalAs[int](p, `[...document.querySelectorAll('[data-testid="dag-node"]')].filter(n => n.dataset.label.includes("19") || n.dataset.nodeId.includes("19")).length`)
	p.wait("the first match", fmt.Sprintf(`document.querySelector('[data-testid="dag-find-count"]').textContent === "1 of %d"`, total))
	first := p.eval(`document.querySelector('[data-testid="dag-node"].dag-match-current').dataset.nodeId`)
	if !evalAs[bool](p, inCanvas) {
		p.fail("the first match %s is not scrolled into the canvas", first)
	}
	if got := evalAs[int](p, `document.querySelectorAll('[data-testid="dag-node"].dag-match').length`); got != total {
		p.fail("%d nodes marked as matches, want %d", got, total)
	}
	p.do(key("\r"))
	p.wait("the second match", fmt.Sprintf(`document.querySelector('[data-testid="dag-find-count"]').textContent === "2 of %d"`, total))
	if second := p.eval(`document.querySelector('[data-testid="dag-node"].dag-match-current').dataset.nodeId`); second == first || !evalAs[bool](p, inCanvas) {
		p.fail("Enter moved the current match from %s to %s, in view: %v", first, second, evalAs[bool](p, inCanvas))
	}

	// Details: beside the canvas at 1280 px, over it at 320 px, dismissed with Escape.
	for _, width := range []int64{1280, 320} {
		p.do(chromedp.EmulateViewport(width, 900))
		p.wait(fmt.Sprintf("the layout at %d px", width), fmt.Sprintf(`document.documentElement.clientWidth === %d`, width))
		p.do(click(`[data-testid="dag-node"].dag-match-current`))
		p.wait("the node's details", `document.querySelector('[data-testid="dag-node-details"][open]') !== null`)
		geo := `((d, c) => { const a = d.getBoundingClientRect(), b = c.getBoundingClientRect();
			return {beside: a.left >= b.right - 1, over: a.top < b.bottom && a.bottom > b.top && a.left < b.right && a.right > b.left, below: a.top >= b.bottom - 1}; })(
			document.querySelector('[data-testid="dag-details"]'), document.querySelector('[data-testid="dag-canvas"]'))`
		pos := evalAs[map[string]bool](p, geo)
		switch {
		case width >= 1280 && !pos["beside"]:
			p.fail("at %d px the details are not beside the graph: %v", width, pos)
		case width < 1280 && (!pos["over"] || pos["below"]):
			p.fail("at %d px the details are not over the graph: %v", width, pos)
		}
		// With details open (the text that was 2.59:1), in both themes.
		checkA11y(p, axeSource(t), fmt.Sprintf("a 200-call diagram at %d px", width))
		if width == 320 {
			dagShot(t, p, fig, "dag-200-320-details.png")
			p.do(key("\x1b"))
			p.wait("the details to close", `getComputedStyle(document.querySelector('[data-testid="dag-details"]')).display === "none"`)
		}
	}
}

// dagShot saves the window with the element sel scrolled to its top (below the sticky page
// header), as people see it.
func dagShot(t *testing.T, p *page, sel, name string) {
	t.Helper()
	p.eval(`(() => { const top = document.querySelector(".top"); const head = top && getComputedStyle(top).position === "sticky" ? top.offsetHeight : 0;
		window.scrollTo(0, document.querySelector(` + js(sel) + `).getBoundingClientRect().top + scrollY - head - 8); return "ok"; })()`)
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.fail("screenshot %s: %v", name, err)
	}
	saveShot(t, name, png)
}

// A live update of the plan (a call's status) swaps the diagram in anew; the reader's zoom,
// scroll position, open node, search and focus stay as they were.
func TestDAGViewSurvivesLiveUpdate(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	a.ingest(bigDAGPlan("sess-live"))
	p := openPage(t, a, "/sessions/sess-live")
	p.do(chromedp.EmulateViewport(1280, 900))
	p.wait("the diagram", `document.querySelectorAll('[data-testid="dag-node"]').length === 200`)
	dagShot(t, p, `[data-testid="dag-diagram"]`, "before.png")
	p.do(click(`[data-testid="dag-zoom-in"]`))
	p.do(typeInto(`[data-testid="dag-find"]`, "Upload"))
	p.wait("matches", `/ of /.test(document.querySelector('[data-testid="dag-find-count"]').textContent)`)
	p.do(click(`[data-testid="dag-node"].dag-match-current`))
	p.wait("the node's details", `document.querySelector('[data-testid="dag-node-details"][open]') !== null`)
	state := `JSON.stringify((f => ({zoom: f.dataset.zoom, left: f.querySelector('[data-testid="dag-canvas"]').scrollLeft,
		top: f.querySelector('[data-testid="dag-canvas"]').scrollTop, open: f.querySelector('[data-testid="dag-node-details"][open]').dataset.nodeId,
		find: f.querySelector('[data-testid="dag-find"]').value, count: f.querySelector('[data-testid="dag-find-count"]').textContent,
		focus: document.activeElement.dataset.nodeId || document.activeElement.dataset.testid || document.activeElement.tagName}))(document.querySelector('[data-testid="dag-diagram"]')))`
	before := p.eval(state)
	p.eval(`document.querySelector('[data-testid="dag-diagram"]').dataset.old = "1"; "ok"`)
	msg := strings.Replace(bigDAGPlan("sess-live"), `"_status":"in_progress"`, `"_status":"completed"`, 1)
	a.ingest(msg)
	p.wait("the diagram to be swapped in", `document.querySelector('[data-testid="dag-diagram"]') && !document.querySelector('[data-testid="dag-diagram"]').dataset.old && document.querySelector('[data-testid="dag-diagram"]').dataset.zoom`)
	if after := p.eval(state); after != before {
		p.fail("the view changed with the update:\n before %s\n after  %s", before, after)
	}
	// Someone typing in the search field keeps typing there through an update.
	p.do(chromedp.Focus(chromedp.CSS(`[data-testid="dag-find"]`)))
	p.eval(`document.querySelector('[data-testid="dag-diagram"]').dataset.old = "1"; "ok"`)
	a.ingest(strings.Replace(msg, `"_status":"in_progress"`, `"_status":"failed"`, 1))
	p.wait("the diagram to be swapped in again", `!document.querySelector('[data-testid="dag-diagram"]').dataset.old && document.querySelector('[data-testid="dag-diagram"]').dataset.zoom`)
	p.do(key(" image")) // typed where the focus is, not into a chosen element
	if got := p.eval(`document.activeElement.dataset.testid + ":" + document.activeElement.value`); got != "dag-find:Upload image" {
		p.fail("after the update the focus and search are %q", got)
	}
}

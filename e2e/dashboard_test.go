package e2e

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// attr reads an attribute of the first element matching sel ("" when missing).
func attr(p *page, sel, name string) string {
	p.t.Helper()
	return p.eval(fmt.Sprintf(`(function(){ var e = document.querySelector(%s); return e ? (e.getAttribute(%s) || "") : ""; })()`, js(sel), js(name)))
}

func count(p *page, sel string) int {
	p.t.Helper()
	return evalAs[int](p, fmt.Sprintf(`document.querySelectorAll(%s).length`, js(sel)))
}

// exists is a wait condition: an element matches sel.
func exists(sel string) string { return fmt.Sprintf(`document.querySelector(%s) !== null`, js(sel)) }

// gone is a wait condition: nothing matches sel.
func gone(sel string) string { return fmt.Sprintf(`document.querySelector(%s) === null`, js(sel)) }

// attrIs is a wait condition: the first element matching sel has attribute name = value.
func attrIs(sel, name, value string) string {
	return fmt.Sprintf(`(document.querySelector(%s) || {getAttribute(){}}).getAttribute(%s) === %s`, js(sel), js(name), js(value))
}

// visible is a wait condition: the element takes up space on the page.
func visible(sel string) string {
	return fmt.Sprintf(`(function(){ var e = document.querySelector(%s); return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden"; })()`, js(sel))
}

func TestPlanAppearsWithoutReload(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	p.wait("the empty state", visible(`[data-testid="empty-state"]`))
	p.markNoReload()

	a.ingest(planV1("s1",
		entry{"Write tests", "high", "pending"},
		entry{"Ship it", "low", "pending"},
	))

	c := card("s1", "main")
	p.wait("the posted plan's card", exists(c))
	p.requireNoReload()
	if got := count(p, c+` [data-testid="plan-entry"]`); got != 2 {
		p.fail("card has %d entries, want 2", got)
	}
	p.wait("the first entry's text", fmt.Sprintf(`document.querySelector(%s).textContent.includes("Write tests")`, js(c+` [data-testid="plan-entry"]`)))
	if got := attr(p, c, "data-revision"); got != "1" {
		p.fail("data-revision = %q, want 1", got)
	}
	// With a plan on the page, the newcomer's empty state gives way.
	p.wait("the empty state to hide", `!(`+visible(`[data-testid="empty-state"]`)+`)`)
	p.requireNoReload()
}

func TestUpdateChangesProgress(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	a.ingest(planV1("s1",
		entry{"Read the code", "high", "pending"},
		entry{"Write the fix", "medium", "pending"},
		entry{"Run the tests", "low", "pending"},
	))
	p := openPage(t, a, "/")
	c := card("s1", "main")
	bar := c + ` [data-testid="plan-progress"]`
	p.wait("the server-rendered card", exists(bar))
	if v, d, tot := attr(p, bar, "aria-valuenow"), attr(p, bar, "data-done"), attr(p, bar, "data-total"); v != "0" || d != "0" || tot != "3" {
		p.fail("before the update: aria-valuenow=%q data-done=%q data-total=%q, want 0, 0, 3", v, d, tot)
	}
	p.markNoReload()

	a.ingest(planV1("s1",
		entry{"Read the code", "high", "completed"},
		entry{"Write the fix", "medium", "in_progress"},
		entry{"Run the tests", "low", "pending"},
	))
	p.wait("the progress bar to show one of three done", attrIs(bar, "data-done", "1"))
	if v := attr(p, bar, "aria-valuenow"); v != "33" {
		p.fail("aria-valuenow = %q after one of three done, want 33", v)
	}
	if r := attr(p, c, "data-revision"); r != "2" {
		p.fail("data-revision = %q, want 2", r)
	}
	if s := attr(p, c, "data-plan-state"); s != "in_progress" {
		p.fail("data-plan-state = %q, want in_progress", s)
	}
	if got := p.eval(fmt.Sprintf(`Array.from(document.querySelectorAll(%s)).map(e => e.dataset.status).join(",")`, js(c+` [data-testid="plan-entry"]`))); got != "completed,in_progress,pending" {
		p.fail("entry statuses = %q, want completed,in_progress,pending", got)
	}

	a.ingest(planV1("s1",
		entry{"Read the code", "high", "completed"},
		entry{"Write the fix", "medium", "completed"},
		entry{"Run the tests", "low", "completed"},
	))
	p.wait("the progress bar to be full", attrIs(bar, "aria-valuenow", "100"))
	if s := attr(p, c, "data-plan-state"); s != "completed" {
		p.fail("data-plan-state = %q, want completed", s)
	}
	if n := count(p, `[data-testid="plan-card"]`); n != 1 {
		p.fail("%d plan cards on the page, want 1 (updates must replace, not add)", n)
	}
	p.requireNoReload()
}

func TestMarkdownPlan(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	p.markNoReload()

	a.ingest(planMarkdown("s1", "m1", "# Release plan\n\nSome *context*.\n\n- [ ] write the notes\n- [x] tag the build\n"))
	md := card("s1", "m1") + ` [data-testid="plan-markdown"]`
	p.wait("the markdown plan", exists(md))
	p.requireNoReload()
	heading := p.eval(fmt.Sprintf(`(document.querySelector(%s) || {}).textContent || ""`, js(md+` h1, `+md+` h2`)))
	if heading != "Release plan" {
		p.fail("heading inside plan-markdown = %q, want %q", heading, "Release plan")
	}
	boxes := md + ` li input[type="checkbox"]`
	if n := count(p, boxes); n != 2 {
		p.fail("%d task-list checkboxes, want 2", n)
	}
	if got := p.eval(fmt.Sprintf(`Array.from(document.querySelectorAll(%s)).map(e => e.checked ? "x" : " ").join("")`, js(boxes))); got != " x" {
		p.fail("checkbox states = %q, want %q (unchecked, checked)", got, " x")
	}
	if n := count(p, md+` em`); n != 1 {
		p.fail("%d <em> in the markdown, want 1", n)
	}

	// An update replaces the markdown in place.
	a.ingest(planMarkdown("s1", "m1", "## Release plan, take two\n\n- [x] write the notes\n- [x] tag the build\n- [ ] announce\n"))
	p.wait("the updated markdown", fmt.Sprintf(`document.querySelectorAll(%s).length === 3`, js(boxes)))
	if got := p.eval(fmt.Sprintf(`document.querySelector(%s).textContent`, js(md+` h2`))); got != "Release plan, take two" {
		p.fail("h2 = %q after the update", got)
	}
	p.requireNoReload()
}

// GFM tables may align their columns. The page's CSP forbids inline styles, so alignment must
// not be rendered as style attributes: they would be blocked (a console violation each, and the
// alignment lost). The harness fails a test on any CSP violation.
func TestMarkdownTableAlignment(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	a.ingest(planMarkdown("s1", "t1", "# Budget\n\n| item | qty | cost |\n|:---|:---:|---:|\n| tests | 8 | 12.50 |\n"))
	cell := card("s1", "t1") + ` [data-testid="plan-markdown"] table td`
	p.wait("the table", exists(cell))
	got := p.eval(fmt.Sprintf(`Array.from(document.querySelectorAll(%s)).map(e => getComputedStyle(e).textAlign.replace("-webkit-", "")).join(",")`, js(cell)))
	// (Chromium computes the align attribute as -webkit-left and so on.)
	if got != "left,center,right" {
		p.fail("cells are aligned %q, want left, center, right", got)
	}

	// The server-rendered page, too.
	p.do(chromedp.Reload())
	p.waitConn("live")
	p.wait("the table after a reload", exists(cell))
}

func TestPlanRemovedRemovesCard(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	a.ingest(
		planItems("s1", "p1", entry{"Keep me", "high", "pending"}),
		planMarkdown("s1", "m1", "# Goes away\n- [ ] soon"),
	)
	p := openPage(t, a, "/")
	p.wait("both cards", exists(card("s1", "p1"))+" && "+exists(card("s1", "m1")))
	p.markNoReload()

	a.ingest(planRemoved("s1", "m1"))
	p.wait("the removed plan's card to go", gone(card("s1", "m1")))
	if n := count(p, card("s1", "p1")); n != 1 {
		p.fail("the other plan of the session is gone too (%d cards)", n)
	}
	if n := count(p, `[data-testid="plan-card"][data-plan-id="m1"]`); n != 0 {
		p.fail("the removed plan is still shown somewhere (%d cards)", n)
	}

	// Removing the session's last plan takes the session off the overview.
	a.ingest(planRemoved("s1", "p1"))
	p.wait("the session's group to go", gone(`[data-testid="session-group"][data-session-id="s1"]`))
	p.wait("the empty state to come back", visible(`[data-testid="empty-state"]`))
	p.requireNoReload()

	// A fresh load agrees with the live page.
	p.do(chromedp.Reload())
	p.waitConn("live")
	if n := count(p, `[data-testid="plan-card"]`); n != 0 {
		p.fail("after a reload %d plan cards are shown, want 0", n)
	}
}

func TestRestartKeepsPlans(t *testing.T) {
	dir := t.TempDir()
	a := startApp(t, dir, "127.0.0.1:0")
	a.ingest(
		planV1("s1", entry{"Plan", "high", "completed"}, entry{"Build", "medium", "in_progress"}),
		planV1("s1", entry{"Plan", "high", "completed"}, entry{"Build", "medium", "completed"}, entry{"Test", "low", "pending"}),
		planMarkdown("s2", "m1", "# Notes\n- [ ] one"),
	)
	p := openPage(t, a, "/")
	p.wait("both sessions", exists(card("s1", "main"))+" && "+exists(card("s2", "m1")))
	before := map[string]string{
		"main": attr(p, card("s1", "main"), "data-revision"),
		"m1":   attr(p, card("s2", "m1"), "data-revision"),
	}
	if before["main"] != "2" || before["m1"] != "1" {
		p.fail("revisions before the restart = %v, want main:2 m1:1", before)
	}
	p.markNoReload()

	a.stop()
	// The open page notices that the server went away.
	p.waitConn("reconnecting")

	// Same data dir, same port, so the open page can find the new server.
	b := startAppRetryPort(t, dir, a.addr)
	if b.addr != a.addr {
		t.Fatalf("restarted on %s, want the old address %s", b.addr, a.addr)
	}

	check := func(p *page) {
		t.Helper()
		p.wait("both plans after the restart", exists(card("s1", "main"))+" && "+exists(card("s2", "m1")))
		for id, sel := range map[string]string{"main": card("s1", "main"), "m1": card("s2", "m1")} {
			if got := attr(p, sel, "data-revision"); got != before[id] {
				p.fail("plan %s has revision %q after the restart, want %q", id, got, before[id])
			}
		}
		bar := card("s1", "main") + ` [data-testid="plan-progress"]`
		if d, tot := attr(p, bar, "data-done"), attr(p, bar, "data-total"); d != "2" || tot != "3" {
			p.fail("progress after the restart: data-done=%q data-total=%q, want 2 of 3", d, tot)
		}
		if n := count(p, card("s2", "m1")+` [data-testid="plan-markdown"] h1`); n != 1 {
			p.fail("the markdown plan lost its heading after the restart")
		}
	}

	// A page loaded from the new server shows what was there before.
	fresh := openPage(t, b, "/")
	check(fresh)

	// The page that stayed open reconnects to the new server by itself, and live updates
	// still reach it: change numbers carried on across the restart, so it does not drop the
	// new fragment as stale.
	p.waitConn("live")
	p.requireNoReload()
	check(p)
	b.ingest(planV1("s1", entry{"Plan", "high", "completed"}, entry{"Build", "medium", "completed"}, entry{"Test", "low", "completed"}))
	p.wait("an update after the restart on the page that stayed open", attrIs(card("s1", "main"), "data-revision", "3"))
	p.requireNoReload()
}

// startAppRetryPort starts a server on addr again, the port of a server this test just
// stopped. The port is ours and only just closed, so it is retried until it is free rather than
// given up: the restart tests' point is that clients find the new server where the old one
// was. It fails the test when the port stays taken past the deadline.
func startAppRetryPort(t *testing.T, dir, addr string) *app {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			return serveOn(t, dir, ln)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stopped server's address %s stayed taken for %s: %v", addr, waitFor, err)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
}

func TestReconnectCatchesUp(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	a.ingest(planV1("s1", entry{"One", "high", "in_progress"}, entry{"Two", "low", "pending"}))
	p := openPage(t, a, "/")
	c := card("s1", "main")
	p.wait("the plan", attrIs(c, "data-revision", "1"))
	if got := p.eval(`document.getElementById("conn").textContent.trim()`); got != "live" {
		p.fail("connection badge says %q, want live", got)
	}
	p.markNoReload()

	// Away until the test says so (resume below): the page cannot come back on its own in the
	// middle of the checks, however slow the machine.
	p.eval(`plandash.disconnect(600000); "ok"`)
	p.waitConn("reconnecting")
	if got := p.eval(`document.getElementById("conn").textContent.trim()`); got != "reconnecting…" {
		p.fail("connection badge says %q while disconnected, want %q", got, "reconnecting…")
	}

	// Two updates while the socket is down: the page must end on the newest.
	a.ingest(planV1("s1", entry{"One", "high", "completed"}, entry{"Two", "low", "in_progress"}))
	a.ingest(planV1("s1", entry{"One", "high", "completed"}, entry{"Two", "low", "completed"}))
	// Nothing arrives while the page is disconnected, and it is still disconnected.
	if got := p.eval(fmt.Sprintf(`document.getElementById("conn").dataset.state + " " + document.querySelector(%s).dataset.revision`, js(c))); got != "reconnecting 1" {
		p.fail("while the socket was down the page shows state and revision %q, want \"reconnecting 1\"", got)
	}

	p.eval(`plandash.resume(); "ok"`)
	p.waitConn("live")
	p.wait("the update made while disconnected", attrIs(c, "data-revision", "3"))
	if got := p.eval(`document.getElementById("conn").textContent.trim()`); got != "live" {
		p.fail("connection badge says %q after reconnecting, want live", got)
	}
	bar := c + ` [data-testid="plan-progress"]`
	if v := attr(p, bar, "aria-valuenow"); v != "100" {
		p.fail("progress after the catch-up = %q, want 100", v)
	}
	if n := count(p, `[data-testid="plan-card"]`); n != 1 {
		p.fail("%d plan cards after the catch-up, want 1 (no duplicates)", n)
	}
	if n := count(p, `[data-testid="session-group"]`); n != 1 {
		p.fail("%d session groups after the catch-up, want 1 (no duplicates)", n)
	}
	p.requireNoReload()

	// And it is live again: the next update arrives over the new socket.
	a.ingest(planV1("s1", entry{"One", "high", "completed"}, entry{"Two", "low", "completed"}, entry{"Three", "low", "pending"}))
	p.wait("an update after the reconnect", attrIs(c, "data-revision", "4"))
	p.requireNoReload()
}

// A page rendered from an empty store must catch up too: a plan posted while its socket is
// down (or before it first connects) must still appear.
func TestReconnectCatchesUpOnEmptyPage(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	p.markNoReload()

	p.eval(`plandash.disconnect(600000); "ok"`)
	p.waitConn("reconnecting")
	a.ingest(planV1("s1", entry{"Posted while the page was away", "high", "pending"}))
	if n := count(p, card("s1", "main")); n != 0 {
		p.fail("the plan appeared while the socket was down")
	}
	p.eval(`plandash.resume(); "ok"`)
	p.waitConn("live")
	p.wait("the plan posted while disconnected", exists(card("s1", "main")))
	p.requireNoReload()
}

func TestAgentContentIsEscaped(t *testing.T) {
	const evil = `<img src=x onerror=alert(1)>`
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	p.markNoReload()

	a.ingest(
		planV1("s1", entry{evil, "high", "pending"}, entry{`<script>window.__pwned=1</script>`, "low", "pending"}),
		planMarkdown("s1", "m1", "# Title "+evil+"\n\n"+evil+"\n\n<script>window.__pwned=1</script>\n\n[click](javascript:window.__pwned=1)\n"),
	)
	c, md := card("s1", "main"), card("s1", "m1")
	p.wait("both cards", exists(c)+" && "+exists(md))

	checkEscaped := func(how string) {
		t.Helper()
		if got := p.eval(fmt.Sprintf(`document.querySelector(%s).textContent`, js(c+` [data-testid="plan-entry"] .entry-text`))); got != evil {
			p.fail("%s: the entry shows %q, want the literal text %q", how, got, evil)
		}
		for _, sel := range []string{c, md} {
			if n := count(p, sel+` img, `+sel+` script, `+sel+` [onerror]`); n != 0 {
				p.fail("%s: %d img/script/[onerror] elements inside %s: agent HTML was rendered", how, n, sel)
			}
		}
		if n := count(p, `a[href^="javascript:" i]`); n != 0 {
			p.fail("%s: a javascript: link was rendered", how)
		}
		if got := p.eval(`String(window.__pwned)`); got != "undefined" {
			p.fail("%s: agent script ran", how)
		}
	}
	checkEscaped("live fragment")
	p.requireNoReload()

	p.do(chromedp.Reload())
	p.waitConn("live")
	p.wait("both cards after a reload", exists(c)+" && "+exists(md))
	checkEscaped("server-rendered page")
}

func TestScreenshotsAndNarrowLayout(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	startSession(a, "claude", "sess_claude_7f3a", "claude-code", "/home/dev/src/github.com/plandash/plandash")
	startSession(a, "gemini", "sess_gemini_19c2", "gemini-cli", "/home/dev/src/design-notes")
	a.ingest(
		planV1("sess_claude_7f3a",
			entry{"Read internal/web/routes.go and map every handler", "high", "completed"},
			entry{"Add the websocket catch-up path in internal/web/socket.go", "high", "in_progress"},
			entry{"Write e2e tests for /home/dev/src/github.com/plandash/plandash/internal/web/socket_catchup_test.go", "medium", "pending"},
			entry{"Drop the old poller", "low", "cancelled"},
		),
		planItems("sess_claude_7f3a", "refactor", entry{"Split render.go", "medium", "completed"}, entry{"Rename fragments", "low", "pending"}),
		planMarkdown("sess_gemini_19c2", "design",
			"## Design: live overview\n\nThe page is rendered once; the socket swaps fragments by id.\n\n"+
				"| step | owner | state |\n|---|---|---|\n| decode | acp | done |\n| apply | plans | doing |\n\n"+
				"- [x] decode ACP\n- [ ] render fragments once\n- [ ] a_really_long_identifier_without_any_breaks_that_agents_love_to_write_for_paths\n\n"+
				"```\ngo test -race -count=1 ./e2e/\n```\n"),
	)
	p := openPage(t, a, "/")
	p.wait("all cards", exists(card("sess_claude_7f3a", "main"))+" && "+exists(card("sess_claude_7f3a", "refactor"))+" && "+exists(card("sess_gemini_19c2", "design")))
	shoot := func(width int64, name string) {
		t.Helper()
		p.do(chromedp.EmulateViewport(width, 800))
		p.wait(fmt.Sprintf("the layout at %d px", width), fmt.Sprintf(`document.documentElement.clientWidth === %d`, width))
		png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			p.fail("screenshot at %d px: %v", width, err)
		}
		saveShot(t, name, png)
	}
	shoot(1280, "overview-1280.png")
	shoot(320, "overview-320.png")

	// At 320 px (an IDE side panel) nothing may stick out sideways.
	sw, cw := evalAs[int](p, `document.documentElement.scrollWidth`), evalAs[int](p, `document.documentElement.clientWidth`)
	if sw > cw {
		wide := p.eval(`Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).slice(0, 8).map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? "." + String(e.className).split(" ").join(".") : "") + (e.dataset.testid ? "[" + e.dataset.testid + "]" : "") + " right=" + Math.round(e.getBoundingClientRect().right)).join("\n")`)
		p.fail("at 320 px the document is %d px wide (clientWidth %d): horizontal overflow. Widest elements:\n%s", sw, cw, wide)
	}
	p.do(chromedp.EmulateViewport(1280, 800))
}

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// startSessionOn opens a session whose agent runs on host (through plandash's _meta, as the
// proxy on another machine sends it).
func startSessionOn(a *app, stream, session, agent, cwd, host string) {
	a.t.Helper()
	a.ingestQuery("stream="+stream,
		rpc(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}}}, nil),
		rpc(1, "", nil, map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": agent, "title": agent, "version": "1.0.0"}}),
		rpc(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "_meta": map[string]any{"plandash": map[string]any{"host": host}}}, nil),
		rpc(2, "", nil, map[string]any{"sessionId": session}),
	)
}

var (
	fleetAgents = []string{"claude-code", "codex", "gemini-cli", "opencode", "zed-agent"}
	fleetHosts  = []string{"laptop", "build-box", "gpu-1"}
)

// fleetSession starts session i of a fleet with a checklist.
func fleetSession(a *app, i int) string {
	a.t.Helper()
	id := fmt.Sprintf("fleet-%02d", i)
	startSessionOn(a, "st-"+id, id, fleetAgents[i%len(fleetAgents)], fmt.Sprintf("/home/dev/service-%d", i%4), fleetHosts[i%len(fleetHosts)])
	a.ingest(planV1(id, entry{fmt.Sprintf("Read module %d", i), "high", "completed"}, entry{"Change the handler", "medium", "in_progress"},
		entry{"Write the tests", "medium", "pending"}, entry{"Open the pull request", "low", "pending"}))
	return id
}

func groupOrder(p *page) string {
	return p.eval(`Array.from(document.querySelectorAll('[data-testid="session-group"]')).map(g => g.dataset.sessionId).join(",")`)
}

// Fifty sessions from five agents on three machines: the order holds while new sessions arrive
// (they are announced, not inserted), the filters and the search narrow the list and survive a
// reload, a collapsed session stays collapsed, and the page passes axe in both themes.
func TestOverviewFiftySessions(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	for i := range 50 {
		fleetSession(a, i)
	}
	// One agent ended its session; another waits at the gate.
	if code, raw := a.gateAPI("POST", "/api/v1/sessions/fleet-44/end", ""); code != 200 {
		t.Fatalf("end a session: %d %s", code, raw)
	}
	waiting := a.submit(`{"title":"Deploy service-2 to staging","agent":"claude-code","sessionId":"fleet-46","plan":{"type":"items","entries":[
		{"content":"Build the image","priority":"high","status":"pending"},{"content":"Roll out","priority":"medium","status":"pending"}]}}`)

	p := openPage(t, a, "/")
	p.do(chromedp.EmulateViewport(1280, 900))
	if n := count(p, `[data-testid="session-group"]`); n != 50 {
		p.fail("%d sessions on the overview, want 50", n)
	}
	if got := p.eval(`document.querySelector('[data-session-id="fleet-44"]').dataset.state + ": " + document.querySelector('[data-session-id="fleet-44"] [data-testid="session-gone"]').textContent`); !strings.HasPrefix(got, "gone: ended ") {
		p.fail("the ended session shows %q", got)
	}
	if got := p.eval(`Array.from(document.querySelectorAll('[data-testid="needs-you-item"] a')).map(a => a.getAttribute("href")).join()`); got != "/approvals/"+waiting {
		p.fail("needs you lists %q", got)
	}
	if got := p.eval(`document.querySelector('[data-session-id="fleet-46"]').dataset.state`); got != "waiting" {
		p.fail("the waiting session is %q", got)
	}
	before := groupOrder(p)
	if !strings.HasPrefix(before, "fleet-49,fleet-48,") {
		p.fail("not newest first: %s", before[:40])
	}
	p.markNoReload()

	// The reader looks at a session in the middle of the list.
	p.eval(`document.querySelector('[data-session-id="fleet-20"]').scrollIntoView({block: "center"}); "ok"`)
	top := p.eval(`String(Math.round(document.querySelector('[data-session-id="fleet-20"]').getBoundingClientRect().top))`)

	// Three sessions start, and sessions below and above the reader change.
	for i := 50; i < 53; i++ {
		fleetSession(a, i)
	}
	a.ingest(planV1("fleet-30", entry{"Read module 30", "high", "completed"}, entry{"Change the handler", "medium", "completed"},
		entry{"Write the tests", "medium", "in_progress"}, entry{"Open the pull request", "low", "pending"}))
	a.ingest(planV1("fleet-05", entry{"Read module 5", "high", "completed"}, entry{"Change the handler", "medium", "completed"},
		entry{"Write the tests", "medium", "completed"}, entry{"Open the pull request", "low", "completed"}))
	p.wait("the new sessions announced", `(document.querySelector('[data-testid="new-sessions-text"]') || {}).textContent === "3 new sessions"`)
	p.wait("the changed sessions redrawn in place", `document.querySelector('[data-session-id="fleet-05"]').dataset.state === "done"`)
	if got := groupOrder(p); got != before {
		p.fail("the order changed while reading:\n%s\nwas\n%s", got, before)
	}
	if got := p.eval(`String(Math.round(document.querySelector('[data-session-id="fleet-20"]').getBoundingClientRect().top))`); got != top {
		p.fail("the session being read moved from %s to %s px", top, got)
	}
	p.do(click(`[data-testid="new-sessions-show"]`))
	p.wait("the new sessions shown first", fmt.Sprintf(`Array.from(document.querySelectorAll('[data-testid="session-group"]')).map(g => g.dataset.sessionId).join(",") === %s`,
		js("fleet-52,fleet-51,fleet-50,"+before)))
	p.wait("the banner gone", `document.getElementById("new-sessions").hidden`)

	// Deciding the request empties the strip and the session works again, live.
	a.gateAPI("POST", "/api/v1/approvals/"+waiting+"/decision", `{"action":"approve"}`)
	p.wait("the strip hidden", `document.getElementById("needs-you").hidden`)
	p.wait("the session no longer waiting", `document.querySelector('[data-session-id="fleet-46"]').dataset.state === "active"`)
	p.requireNoReload()

	// Collapse a session; it stays collapsed after a reload.
	p.do(click(`[data-session-id="fleet-48"] [data-testid="collapse"]`))
	p.wait("collapsed", `!document.querySelector('[data-session-id="fleet-48"] .group-body').checkVisibility()`)
	if got := p.eval(`document.querySelector('[data-session-id="fleet-48"] [data-testid="collapse"]').getAttribute("aria-expanded")`); got != "false" {
		p.fail("aria-expanded = %s after collapsing", got)
	}
	p.do(chromedp.Navigate(a.url("/")))
	p.waitConn("live")
	p.wait("still collapsed after a reload", `document.querySelector('[data-session-id="fleet-48"]').hasAttribute("data-collapsed")`)

	// The search box narrows the page as you type; Enter searches every session.
	p.do(typeInto(`[data-testid="filter-q"]`, "module 17"))
	p.wait("one session shown", `Array.from(document.querySelectorAll('[data-testid="session-group"]')).filter(g => g.checkVisibility()).map(g => g.dataset.sessionId).join() === "fleet-17"`)
	p.do(typeInto(`[data-testid="filter-q"]`, "\r"))
	p.wait("the search in the address", `new URLSearchParams(location.search).get("q") === "module 17"`)
	p.waitConn("live")
	if got := groupOrder(p); got != "fleet-17" {
		p.fail("searching every session found %s", got)
	}

	// A menu applies at once, with the search kept, and the address can be shared.
	p.do(chromedp.Navigate(a.url("/")))
	p.waitConn("live")
	// As a person picks from the menu: the value changes, then the menu says so.
	p.eval(`(s => { s.value = "codex"; s.dispatchEvent(new Event("change", {bubbles: true})); return "ok"; })(document.querySelector('[data-testid="filter-agent"]'))`)
	p.wait("the agent in the address", `location.search === "?agent=codex"`)
	p.waitConn("live")
	if got := p.eval(`Array.from(new Set(Array.from(document.querySelectorAll('[data-testid="session-group"]')).map(g => g.dataset.agent))).join()`); got != "codex" {
		p.fail("filtered by codex, the page shows %s", got)
	}
	if n := count(p, `[data-testid="session-group"]`); n != 11 {
		p.fail("%d codex sessions, want 11", n)
	}
	// A new session of another agent is not announced on a page filtered to codex; one of codex is.
	fleetSession(a, 53) // gemini-cli
	fleetSession(a, 56) // codex
	p.wait("the codex session announced", `(document.querySelector('[data-testid="new-sessions-text"]') || {}).textContent === "1 new session"`)

	// Machine and state, from the address alone.
	p.do(chromedp.Navigate(a.url("/?host=gpu-1&state=active&density=compact")))
	p.waitConn("live")
	if got := p.eval(`Array.from(new Set(Array.from(document.querySelectorAll('[data-testid="session-group"]')).map(g => g.dataset.host))).join()`); got != "gpu-1" {
		p.fail("filtered by gpu-1, the page shows %s", got)
	}
	if cols := p.eval(`String(getComputedStyle(document.getElementById("sessions")).gridTemplateColumns.split(" ").length)`); cols != "3" {
		p.fail("compact at 1280 px has %s columns, want 3", cols)
	}
	src := axeSource(t)
	checkA11y(p, src, "the compact overview")
	p.do(chromedp.Navigate(a.url("/")))
	p.waitConn("live")
	checkA11y(p, src, "the overview with 57 sessions")
	// How a gone session looks beside a live one, for people to judge.
	p.eval(`document.querySelector('[data-session-id="fleet-44"]').scrollIntoView({block: "center"}); "ok"`)
	if png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot()); err == nil {
		saveShot(t, "overview-50-gone-session.png", png)
	}
	a.submit(`{"title":"Drop the legacy session table","agent":"opencode","sessionId":"fleet-53","plan":{"type":"items","entries":[
		{"content":"Back up the table","priority":"high","status":"pending"},{"content":"Drop it","priority":"high","status":"pending"}]}}`)
	// What a person sees on opening the page (the viewport, not the whole long page), in both
	// densities, at a desktop's width and a side panel's, light and dark.
	for _, shot := range []struct {
		path, name string
		width      int64
		theme      string
	}{
		{"/", "comfortable", 1280, "light"}, {"/", "comfortable", 320, "light"}, {"/", "comfortable", 1280, "dark"}, {"/", "comfortable", 320, "dark"},
		{"/?density=compact", "compact", 1280, "light"}, {"/?density=compact", "compact", 1280, "dark"},
	} {
		p.do(chromedp.Navigate(a.url(shot.path)))
		p.waitConn("live")
		p.do(chromedp.EmulateViewport(shot.width, 900))
		p.eval(`document.documentElement.dataset.theme = ` + js(shot.theme) + `; "ok"`)
		p.wait(fmt.Sprintf("the layout at %d px", shot.width), fmt.Sprintf(`document.documentElement.clientWidth === %d`, shot.width))
		png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			p.fail("screenshot: %v", err)
		}
		saveShot(t, fmt.Sprintf("overview-50-%s-%d-%s.png", shot.name, shot.width, shot.theme), png)
		if shot.width == 320 {
			if sw, cw := evalAs[int](p, `document.documentElement.scrollWidth`), evalAs[int](p, `document.documentElement.clientWidth`); sw > cw {
				p.fail("at 320 px the document is %d px wide", sw)
			}
		}
	}
}

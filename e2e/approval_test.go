package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	pdapp "github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/approval"
)

// The gate in the browser: requests appear live, a person modifies, approves and rejects with
// the mouse and the keyboard, and the agent waiting on the API gets exactly what was decided.

const threeSteps = `{"title":"Refactor the parser","agent":"claude","sessionId":"s1","plan":{"type":"items","entries":[
	{"content":"Read the code","priority":"high","status":"pending"},
	{"content":"Change it","priority":"medium","status":"pending"},
	{"content":"Run the tests","priority":"low","status":"pending"}]}}`

// gateAPI sends a request to the gate's API with the token.
func (a *app) gateAPI(method, path, body string) (int, []byte) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.url(path), strings.NewReader(body))
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: read the answer (%s): %v", method, path, resp.Status, err)
	}
	return resp.StatusCode, raw
}

// request reads a request through the API, failing the test unless it is there.
func (a *app) request(id string) approval.Request {
	a.t.Helper()
	code, raw := a.gateAPI("GET", "/api/v1/approvals/"+id, "")
	var r approval.Request
	if err := json.Unmarshal(raw, &r); code != http.StatusOK || err != nil {
		a.t.Fatalf("GET request %s answered %d (%v): %s", id, code, err, raw)
	}
	return r
}

// submit creates a request and returns its id.
func (a *app) submit(body string) string {
	a.t.Helper()
	code, raw := a.gateAPI("POST", "/api/v1/approvals", body)
	var r approval.Request
	if code != http.StatusCreated || json.Unmarshal(raw, &r) != nil {
		a.t.Fatalf("submit answered %d: %s", code, raw)
	}
	return r.ID
}

// awaited is what a waiting agent ends with: the decided request, or why its wait failed.
type awaited struct {
	r   approval.Request
	err error
}

// await long-polls a request until it is decided, as an agent does; the result arrives on the
// returned channel (read it with decision). The goroutine never fails the test itself.
func (a *app) await(id string) <-chan awaited {
	out := make(chan awaited, 1)
	go func() {
		client := &http.Client{Timeout: time.Minute}
		for {
			req, err := http.NewRequest("GET", a.url("/api/v1/approvals/"+id+"?wait=30s"), nil)
			if err != nil {
				out <- awaited{err: err}
				return
			}
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := client.Do(req)
			if err != nil {
				out <- awaited{err: err}
				return
			}
			var r approval.Request
			err = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			switch {
			case err != nil:
				out <- awaited{err: fmt.Errorf("decode the answer (%s): %w", resp.Status, err)}
				return
			case resp.StatusCode != http.StatusOK:
				out <- awaited{err: fmt.Errorf("the long poll answered %s", resp.Status)}
				return
			case r.Decided():
				out <- awaited{r: r}
				return
			}
		}
	}()
	return out
}

// decision is what the waiting agent of ch received; it fails the test when the wait failed or
// nothing arrived in time, instead of hanging the test binary.
func (a *app) decision(ch <-chan awaited) approval.Request {
	a.t.Helper()
	select {
	case got := <-ch:
		if got.err != nil {
			a.t.Fatalf("the waiting agent got no decision: %v", got.err)
		}
		return got.r
	case <-time.After(2 * waitFor):
		a.t.Fatalf("the waiting agent got no decision within %s", 2*waitFor)
	}
	return approval.Request{}
}

// freezeClock stops the page's Date.now at t, now and on every later document of the tab: the
// browser's half of a fake clock whose server half is app.Config.Now.
func (p *page) freezeClock(t time.Time) {
	p.t.Helper()
	src := fmt.Sprintf(`Date.now = function () { return %d; };`, t.UnixMilli())
	if _, err := chromedp.Call(p.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: src, RunImmediately: ptr(true)}); err != nil {
		p.fail("freeze the page's clock: %v", err)
	}
	if got := evalAs[int64](p, `Date.now()`); got != t.UnixMilli() {
		p.fail("the page's clock reads %d after freezing it at %d", got, t.UnixMilli())
	}
}

func ptr[T any](v T) *T { return &v }

func key(k string) chromedp.Action[chromedp.Void] { return chromedp.KeyEvent(k) }

func click(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }

func row(id string) string { return fmt.Sprintf(`[data-testid="approval-row"][data-id=%q]`, id) }

func TestApprovalInboxShowsRequestsLive(t *testing.T) {
	// The server's clock and the page's stand still at the same instant, so the deadline
	// countdown reads exactly one hour, however slow the machine is.
	now := time.Now().Truncate(time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := serveConfig(t, ln, pdapp.Config{Now: func() time.Time { return now }})
	p := openPage(t, a, "/approvals")
	p.freezeClock(now)
	p.wait("the empty inbox", visible(`[data-testid="approvals-empty"]`))
	other := openPage(t, a, "/")
	p.markNoReload()

	first := a.submit(threeSteps)
	p.wait("the new request's row", exists(`[data-testid="approvals-pending"] `+row(first)))
	p.wait("the count in the title", `document.title.startsWith("1 waiting — ")`)
	p.wait("the count in the navigation", `document.getElementById("pending-count").textContent === "1"`)
	p.wait("the count on the favicon", `document.querySelector('link[rel="icon"]').getAttribute("href").startsWith("data:image/svg+xml")`)
	p.wait("the empty state to hide", `!`+visible(`[data-testid="approvals-empty"]`))
	other.wait("the count on another page", `document.getElementById("pending-count").textContent === "1" && document.title.startsWith("1 waiting — ")`)

	second := a.submit(`{"title":"Write the docs","plan":{"type":"markdown","markdown":"# Docs\n\n- API\n- CLI"}}`)
	p.wait("the second row, after the first", fmt.Sprintf(`(function(){ var r = document.querySelectorAll('[data-testid="approval-row"]'); return r.length === 2 && r[0].dataset.id === %q && r[1].dataset.id === %q; })()`, first, second))
	countdown := `document.querySelector('` + row(first) + ` [data-testid="countdown"] time').textContent`
	if txt := p.eval(countdown); txt != "1h 00m" {
		p.fail("the deadline countdown reads %q as rendered, want 1h 00m", txt)
	}
	// The page's own ticking (every second) agrees with the server.
	p.eval(`document.querySelector('` + row(first) + ` [data-testid="countdown"] time').textContent = "ticked?"; "ok"`)
	p.wait("the countdown to tick", countdown+` !== "ticked?"`)
	if txt := p.eval(countdown); txt != "1h 00m" {
		p.fail("the deadline countdown reads %q after a tick, want 1h 00m", txt)
	}
	// Decided elsewhere: the row moves to the recent decisions, live.
	a.gateAPI("POST", "/api/v1/approvals/"+first+"/decision", `{"action":"approve"}`)
	p.wait("the row to leave the pending list", gone(`[data-testid="approvals-pending"] `+row(first)))
	p.wait("the decision in the recent list", attrIs(fmt.Sprintf(`[data-testid="decided-row"][data-id=%q]`, first), "data-status", "approved"))
	p.wait("the count to drop", `document.title.startsWith("1 waiting — ") && document.getElementById("pending-count").textContent === "1"`)
	p.requireNoReload()
	shootGate(t, p, "approvals-inbox")
}

func TestApprovalModifyItemsPlan(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	id := a.submit(threeSteps)
	decided := a.await(id)
	p := openPage(t, a, "/approvals/"+id)
	if n := count(p, `[data-testid="plan-card"] [data-testid="plan-entry"]`); n != 3 {
		p.fail("the plan card shows %d entries, want 3", n)
	}
	p.do(key("m"))
	p.wait("the editor to open", `document.querySelector('[data-testid="editor"]').open`)
	shootGate(t, p, "approval-editor")
	rows := `[data-testid="editor-rows"] > li`
	// Reorder: "Read the code" goes below "Change it".
	p.do(click(rows + `:nth-child(1) [data-testid="editor-down"]`))
	p.wait("the reorder", fmt.Sprintf(`document.querySelector(%s).value === "Change it"`, js(rows+`:nth-child(1) [data-testid="editor-content"]`)))
	// Edit: the first entry's text, the third one's priority.
	p.do(chromedp.Clear(chromedp.CSS(rows+`:nth-child(1) [data-testid="editor-content"]`)), typeInto(rows+`:nth-child(1) [data-testid="editor-content"]`, "Change it carefully"))
	p.do(chromedp.SetValue(chromedp.CSS(rows+`:nth-child(3) select[name="priority"]`), "high"))
	// Add: a fourth entry at the end.
	p.do(click(`[data-testid="editor-add"]`))
	p.wait("the new row", fmt.Sprintf(`document.querySelectorAll(%s).length === 4`, js(rows)))
	p.do(typeInto(rows+`:nth-child(4) [data-testid="editor-content"]`, "Update the docs"))
	p.do(chromedp.SetValue(chromedp.CSS(rows+`:nth-child(4) select[name="priority"]`), "low"))
	p.do(typeInto(`[data-testid="decide-comment"]`, "Change first, then read"))
	p.wait("Approve with changes", visible(`[data-testid="approve-changes"]`))
	p.do(click(`[data-testid="approve-changes"]`))
	p.wait("the decision on the page", attrIs(`[data-testid="approval-panel"]`, "data-status", "modified"))
	p.waitConn("live")

	r := a.decision(decided)
	want := []string{"Change it carefully/medium/pending", "Read the code/high/pending", "Run the tests/high/pending", "Update the docs/low/pending"}
	var got []string
	if r.Decision != nil && r.Decision.Plan != nil {
		for _, e := range r.Decision.Plan.Entries {
			got = append(got, e.Content+"/"+e.Priority+"/"+e.Status)
		}
	}
	if r.Status != approval.Modified || strings.Join(got, "|") != strings.Join(want, "|") || r.Decision.Comment != "Change first, then read" || r.Decision.By != "local user" {
		p.fail("the waiting client received %s %+v\nentries %v\nwant    %v", r.Status, r.Decision, got, want)
	}
	if n := count(p, `[data-testid="decision-diff"] [data-testid="diff-change"][data-op="added"]`); n == 0 {
		p.fail("no diff shown for the modified plan")
	}
	shootGate(t, p, "approval-modified")
}

func TestApprovalRejectWithReason(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	id := a.submit(threeSteps)
	decided := a.await(id)
	p := openPage(t, a, "/approvals/"+id)
	p.markNoReload()
	// Without a reason the page asks for one and sends nothing.
	p.do(click(`[data-testid="reject"]`))
	p.wait("the request for a reason", visible(`[data-testid="form-error"]`))
	p.requireNoReload()
	// The page focused the reason box; leave it, then come back to it with r.
	p.eval(`document.activeElement.blur(); "ok"`)
	p.do(key("r"))
	p.wait("the reason box focused", `document.activeElement === document.querySelector('[data-testid="decide-comment"]')`)
	p.do(typeInto(`[data-testid="decide-comment"]`, "Not before the release freeze ends"))
	p.do(click(`[data-testid="reject"]`))
	p.wait("the rejection on the page", attrIs(`[data-testid="approval-panel"]`, "data-status", "rejected"))
	r := a.decision(decided)
	if r.Status != approval.Rejected || r.Decision.Comment != "Not before the release freeze ends" || r.Decision.Plan != nil {
		p.fail("the waiting client received %s %+v", r.Status, r.Decision)
	}
	p.wait("the reason shown", `document.querySelector('[data-testid="decision-comment"]').textContent.includes("release freeze")`)
}

func TestApprovalKeyboard(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	first := a.submit(threeSteps)
	second := a.submit(strings.Replace(threeSteps, "Refactor the parser", "Second plan", 1))
	third := a.submit(strings.Replace(threeSteps, "Refactor the parser", "Third plan", 1))
	p := openPage(t, a, "/approvals")
	sel := `document.querySelector('.ap-row.selected') && document.querySelector('.ap-row.selected').dataset.id === `
	p.do(key("j"))
	p.wait("j to select the first", sel+js(first))
	p.do(key("j"), key("j"))
	p.wait("j j to select the third", sel+js(third))
	p.do(key("k"))
	p.wait("k to go back to the second", sel+js(second))
	// ? lists the keys; Escape closes the list.
	p.do(key("?"))
	p.wait("the list of keys", visible(`[data-testid="key-help"]`))
	p.do(key(kb.Escape))
	p.wait("the list to close", `!document.querySelector('[data-testid="key-help"]')`)
	// a shows the selected request's plan; a then asks for a confirmation, and only the second
	// a approves it from the inbox. The selection then moves on to the next waiting request.
	p.do(key("a"))
	p.wait("the second's plan shown", visible(row(second)+` [data-testid="row-plan"] [data-testid="plan-card"]`))
	p.do(key("a"))
	p.wait("the confirmation", visible(`[data-testid="key-confirm"]`)+` && document.querySelector('[data-testid="key-confirm"]').textContent.includes("Second plan")`)
	if n := count(p, `[data-testid="decided-row"][data-id=`+js(second)+`]`); n != 0 {
		p.fail("one a approved the request without a confirmation")
	}
	p.do(key("a"))
	p.wait("the second to be approved", attrIs(fmt.Sprintf(`[data-testid="decided-row"][data-id=%q]`, second), "data-status", "approved"))
	p.waitConn("live")
	if n := count(p, `[data-testid="approvals-pending"] [data-testid="approval-row"]`); n != 2 {
		p.fail("%d requests still pending, want 2", n)
	}
	p.wait("the selection on the next waiting request", sel+js(third))
	// Enter opens the selected request; a approves it there (a, then Enter); j goes on to the next one.
	p.do(key("k"))
	p.wait("k to select the first", sel+js(first))
	p.do(key(kb.Enter))
	p.wait("the first request's page", exists(`[data-testid="decide-form"]`)+` && location.pathname === `+js("/approvals/"+first))
	p.waitConn("live")
	p.do(key("j"))
	p.wait("j to open the next pending request", `location.pathname === `+js("/approvals/"+third))
	p.waitConn("live")
	p.do(key("k"))
	p.wait("k to open the previous one", `location.pathname === `+js("/approvals/"+first))
	p.waitConn("live")
	p.do(key("a"))
	p.wait("a to ask for the confirmation", visible(`[data-testid="key-confirm"]`))
	if got := p.eval(`document.querySelector('[data-testid="approval-panel"]').dataset.status`); got == "approved" {
		p.fail("one a approved the request without a confirmation")
	}
	p.do(key(kb.Enter))
	p.wait("Enter to confirm the approval", attrIs(`[data-testid="approval-panel"]`, "data-status", "approved"))
	// r on the inbox opens the request ready for a reason.
	p.do(chromedp.Navigate(a.url("/approvals")))
	p.waitConn("live")
	p.do(key("j"), key("r"))
	p.wait("the third request's page, reason box focused", `location.pathname === `+js("/approvals/"+third)+
		` && document.activeElement === document.querySelector('[data-testid="decide-comment"]')`)
}

func TestApprovalSecondBrowserSeesDecision(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	id := a.submit(threeSteps)
	alice := openPage(t, a, "/approvals/"+id)
	bob := openPage(t, a, "/approvals/"+id)
	// Carol's page is offline, so her form is stale when she uses it.
	carol := openPage(t, a, "/approvals/"+id)
	carol.eval(`plandash.disconnect(600000); "ok"`)
	carol.waitConn("reconnecting")
	bob.markNoReload()

	alice.do(click(`[data-testid="approve"]`))
	alice.wait("alice's decision", attrIs(`[data-testid="approval-panel"]`, "data-status", "approved"))
	bob.wait("the decision, live", attrIs(`[data-testid="approval-panel"]`, "data-status", "approved"))
	bob.requireNoReload()
	if n := count(bob, `[data-testid="approve"], [data-testid="reject"], [data-testid="decide-form"]`); n != 0 {
		bob.fail("bob can still decide: %d controls", n)
	}
	// a on a decided request does nothing: count the key and any form submission it starts
	// (requestSubmit fires "submit" synchronously, before the key event returns).
	bob.eval(`window.__keys = 0; window.__submits = 0;
		document.addEventListener("keydown", function (e) { if (e.key === "a") window.__keys++; }, true);
		document.addEventListener("submit", function () { window.__submits++; }, true); "ok"`)
	bob.do(key("a"))
	bob.wait("the key to reach the page", `window.__keys === 1`)
	if n := evalAs[int](bob, `window.__submits`); n != 0 {
		bob.fail("a on a decided request submitted %d forms", n)
	}
	bob.requireNoReload()

	carol.do(typeInto(`[data-testid="decide-comment"]`, "too risky"))
	carol.do(click(`[data-testid="reject"]`))
	carol.wait("what happened", exists(`[data-testid="notice"]`))
	if txt := carol.eval(`document.querySelector('[data-testid="notice"]').textContent`); !strings.Contains(txt, "local user approved it first") {
		carol.fail("the notice says %q", txt)
	}
	if got := attr(carol, `[data-testid="approval-panel"]`, "data-status"); got != "approved" {
		carol.fail("carol's page shows %q, want the winning decision", got)
	}
	r := a.request(id)
	if r.Status != approval.Approved || r.Decision.Comment != "" {
		t.Fatalf("stored decision %s %+v", r.Status, r.Decision)
	}
	shootGate(t, carol, "approval-conflict")
}

// shootGate saves screenshots at 1280 and 320 px and fails on sideways overflow at 320.
func shootGate(t *testing.T, p *page, name string) {
	t.Helper()
	for _, width := range []int64{1280, 320} {
		p.do(chromedp.EmulateViewport(width, 900))
		p.wait(fmt.Sprintf("the layout at %d px", width), fmt.Sprintf(`document.documentElement.clientWidth === %d`, width))
		png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			p.fail("screenshot: %v", err)
		}
		saveShot(t, fmt.Sprintf("%s-%d.png", name, width), png)
		if sw, cw := evalAs[int](p, `document.documentElement.scrollWidth`), evalAs[int](p, `document.documentElement.clientWidth`); sw > cw {
			wide := p.eval(`Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).slice(0, 8).map(e => e.tagName.toLowerCase() + "." + String(e.className) + " right=" + Math.round(e.getBoundingClientRect().right)).join("\n")`)
			p.fail("%s at %d px: the document is %d px wide: horizontal overflow:\n%s", name, width, sw, wide)
		}
	}
	p.do(chromedp.EmulateViewport(1280, 800))
}

func TestApprovalMarkdownAndToolCalls(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	md := a.submit(`{"title":"Write the release notes","context":"For **v2.4**.","agent":"gemini","plan":{"type":"markdown","markdown":"# Notes\n\n- Parser is faster"}}`)
	decided := a.await(md)
	p := openPage(t, a, "/approvals/"+md)
	p.wait("the markdown drawn", exists(`[data-testid="plan-markdown"] h1`))
	p.do(key("m"))
	p.wait("the text editor", `document.activeElement === document.querySelector('[data-testid="editor-markdown"]')`)
	p.do(typeInto(`[data-testid="editor-markdown"]`, "\n- Docs are new"))
	p.wait("Approve with changes", visible(`[data-testid="approve-changes"]`))
	p.do(click(`[data-testid="approve-changes"]`))
	p.wait("the decision", attrIs(`[data-testid="approval-panel"]`, "data-status", "modified"))
	if r := a.decision(decided); r.Decision == nil || r.Decision.Plan.Markdown != "# Notes\n\n- Parser is faster\n- Docs are new" {
		p.fail("the waiting client received %+v", r.Decision)
	}

	calls := `[{"_tool":"read_file","_id":"read","path":"go.mod","_outputPath":"†state.mod"},{"_tool":"summarize","_id":"sum","text":"†state.mod"}]`
	dag := a.submit(`{"title":"Summarise go.mod","agent":"cagent","plan":{"type":"dag","calls":` + calls + `}}`)
	p = openPage(t, a, "/approvals/"+dag)
	p.do(key("m"))
	check := `[data-testid="editor-check"]`
	p.wait("the calls checked", attrIs(check, "data-ok", "true"))
	// A read of state nobody writes is caught as it is typed, and the plan cannot be sent.
	p.do(chromedp.SetValue(chromedp.CSS(`[data-testid="editor-calls"]`), strings.Replace(calls, "†state.mod", "†state.nothing", 1)))
	p.eval(`document.querySelector('[data-testid="editor-calls"]').dispatchEvent(new Event("input")); "ok"`)
	p.wait("the problem shown", attrIs(check, "data-ok", "false")+` && document.querySelector('[data-testid="approve-changes"]').disabled`)
	shootGate(t, p, "approval-dag")
	p.do(chromedp.Navigate(a.url("/approvals/audit?agent=gemini")))
	p.wait("the audit log", exists(`[data-testid="audit-row"][data-event="modified"]`))
	if n := count(p, `[data-testid="audit-row"]`); n != 2 {
		p.fail("%d audit rows for gemini, want 2 (requested, modified)", n)
	}
	shootGate(t, p, "approvals-audit")
}

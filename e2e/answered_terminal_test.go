package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/plandash/plandash/internal/approval"
)

// TestAnsweredInTheTerminalLive: when Claude Code's own dialog takes a request (the person
// answered in the terminal), the open request page and the inbox stop offering a decision at
// once, without a reload, and say "answered in the terminal — outcome not known yet"; the
// event that shows the outcome then replaces it. Screenshots at 1280 and 320 px, light and
// dark; no contrast or naming violations.
func TestAnsweredInTheTerminalLive(t *testing.T) {
	src := axeSource(t)
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	id := a.submit(`{"title":"Plan: Add rate limiting","agent":"Claude Code","sessionId":"claude-code:s1","then":"the terminal decides",` +
		`"plan":{"type":"markdown","markdown":"# Add rate limiting\n\n1. Token bucket per API key\n2. 429 with Retry-After"}}`)
	p := openPage(t, a, "/approvals/"+id)
	inbox := openPage(t, a, "/approvals")
	p.wait("the decision form", exists(`[data-testid="decide-form"]`))
	inbox.wait("the request waiting", exists(`[data-testid="approvals-pending"] [data-testid="approval-row"]`))
	p.markNoReload()
	inbox.markNoReload()

	note := "answered in the terminal — outcome not known yet"
	if _, err := a.srv.Gate.HandOver(context.Background(), id, "terminal", note); err != nil {
		t.Fatal(err)
	}
	p.wait("the panel says the terminal answered", attrIs(`[data-testid="approval-panel"]`, "data-status", "elsewhere")+` && `+gone(`[data-testid="decide-form"]`)+
		` && document.querySelector('[data-testid="decision-status"]').textContent.trim() === `+js(note))
	p.wait("the head no longer counts down", `getComputedStyle(document.querySelector('[data-testid="approval-deadline"]')).display === "none"`)
	inbox.wait("the inbox moved it out of the waiting list", gone(`[data-testid="approvals-pending"] [data-testid="approval-row"]`)+
		` && `+exists(`[data-testid="decided-row"][data-status="elsewhere"]`))
	shootGate(t, p, "answered-in-terminal")
	shootGate(t, inbox, "answered-in-terminal-inbox")
	p.eval(`document.documentElement.dataset.theme = "dark"; "ok"`)
	p.do(chromedp.EmulateViewport(320, 900))
	if png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)); err == nil {
		saveShot(t, "answered-in-terminal-320-dark.png", png)
	}
	p.eval(`delete document.documentElement.dataset.theme; "ok"`)
	p.do(chromedp.EmulateViewport(1280, 800))
	checkA11y(p, src, "a request answered in the terminal")

	if _, err := a.srv.Gate.Settle(context.Background(), id, approval.DecisionInput{Action: approval.Approve, By: "terminal",
		Comment: "answered in the terminal — approved: Claude Code went ahead with the plan"}); err != nil {
		t.Fatal(err)
	}
	p.wait("the outcome", attrIs(`[data-testid="approval-panel"]`, "data-status", "approved")+
		` && document.querySelector('[data-testid="decision-by"]').textContent === "terminal"`)
	inbox.wait("the inbox's row says the outcome", exists(`[data-testid="decided-row"][data-status="approved"]`)+` && `+gone(`[data-testid="decided-row"][data-status="elsewhere"]`))
	p.requireNoReload()
	inbox.requireNoReload()
}

// TestRuleFormFitsAPhone: the rule form, with its machine and directory fields, fits 320 px and
// offers the machines and directories of recent sessions.
func TestRuleFormFitsAPhone(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	startSession(a, "st1", "s1", "claude", "/home/ann/src/plandash")
	a.ingest(planV1("s1", entry{"Read the code", "high", "in_progress"}))
	p := openPage(t, a, "/approvals")
	p.eval(`document.querySelector(".rule-add").open = true; "ok"`)
	p.wait("the directory suggested", exists(`[data-testid="rule-dir-option"][value="/home/ann/src/plandash"]`)+` && `+exists(`[data-testid="rule-machine-option"]`))
	shootGate(t, p, "rule-form")
}

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/plandash/plandash/internal/approval"
)

// Items of the gate's review: an edited plan is never approved as submitted by accident, and
// nothing is approved from the inbox without its plan having been on screen.

const editorRows = `[data-testid="editor-rows"] > li`

// editFirstEntry opens the editor with m and changes the first entry's text to text.
func editFirstEntry(p *page, text string) {
	p.t.Helper()
	p.do(key("m"))
	p.wait("the editor to open", `document.querySelector('[data-testid="editor"]').open`)
	sel := editorRows + `:nth-child(1) [data-testid="editor-content"]`
	p.do(chromedp.Clear(chromedp.CSS(sel)), typeInto(sel, text))
}

// editedState is true when the page offers only the approval of the edited plan.
const editedState = `document.querySelector('[data-testid="approve"]').hidden && document.querySelector('[data-testid="approve"]').disabled &&
	!document.querySelector('[data-testid="approve-changes"]').hidden && !document.querySelector('[data-testid="discard-changes"]').hidden &&
	!document.querySelector('[data-testid="edit-note"]').hidden`

const pristineState = `!document.querySelector('[data-testid="approve"]').hidden && !document.querySelector('[data-testid="approve"]').disabled &&
	document.querySelector('[data-testid="approve-changes"]').hidden && document.querySelector('[data-testid="discard-changes"]').hidden`

func entries(r approval.Request) string {
	if r.Decision == nil || r.Decision.Plan == nil {
		return "(none)"
	}
	var out []string
	for _, e := range r.Decision.Plan.Entries {
		out = append(out, e.Content)
	}
	return strings.Join(out, "|")
}

func TestGateEditedPlanIsNeverApprovedUnedited(t *testing.T) {
	for _, how := range []string{"click", "key"} {
		t.Run(how, func(t *testing.T) {
			a := startApp(t, t.TempDir(), "127.0.0.1:0")
			id := a.submit(threeSteps)
			decided := a.await(id)
			p := openPage(t, a, "/approvals/"+id)
			p.markNoReload()
			p.wait("the plain approval before any edit", pristineState)

			// An edit swaps the primary action; discarding it puts the plan back and Approve too.
			editFirstEntry(p, "Read the code twice")
			p.wait("the edited state", editedState)
			p.do(click(`[data-testid="discard-changes"]`))
			p.wait("the discarded edit", pristineState+` && document.querySelector(`+js(editorRows+`:nth-child(1) [data-testid="editor-content"]`)+`).value === "Read the code"`)
			p.requireNoReload()
			// Removing a row is an edit as well.
			p.do(click(editorRows + `:nth-child(3) [data-testid="editor-remove"]`))
			p.wait("the edited state after a removal", editedState)
			p.do(click(`[data-testid="discard-changes"]`))
			p.wait("three rows again", pristineState+fmt.Sprintf(` && document.querySelectorAll(%s).length === 3`, js(editorRows)))

			editFirstEntry(p, "Read the code twice")
			p.wait("the edited state", editedState)
			if how == "key" {
				p.eval(`document.activeElement.blur(); "ok"`)
				p.do(key("a"))
				p.wait("the confirmation", visible(`[data-testid="key-confirm"]`)+` && document.querySelector('[data-testid="key-confirm"]').textContent.includes("with your changes")`)
				p.do(key("a"))
			} else {
				p.do(click(`[data-testid="approve-changes"]`))
			}
			p.wait("the decision on the page", attrIs(`[data-testid="approval-panel"]`, "data-status", "modified"))
			r := a.decision(decided)
			if r.Status != approval.Modified || entries(r) != "Read the code twice|Change it|Run the tests" {
				p.fail("the agent received %s with %s", r.Status, entries(r))
			}
		})
	}
}

// The request page with an edit, at 1280 and 320 px, light and dark, for people to look at.
func TestGateEditedPlanScreenshots(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	id := a.submit(threeSteps)
	p := openPage(t, a, "/approvals/"+id)
	editFirstEntry(p, "Read the code, then the tests, then the docs")
	p.wait("the edited state", editedState)
	for _, theme := range []string{"light", "dark"} {
		p.eval(`document.documentElement.dataset.theme = ` + js(theme) + `; "ok"`)
		shootGate(t, p, "approval-edited-"+theme)
	}
}

func TestGateInboxApprovesOnlyShownPlans(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	first := a.submit(threeSteps)
	second := a.submit(strings.Replace(threeSteps, "Refactor the parser", "Second plan", 1))
	p := openPage(t, a, "/approvals")
	p.markNoReload()
	quick := func(id string) string { return row(id) + ` [data-testid="quick-approve"]` }
	p.wait("the disabled approvals, with their reason", `document.querySelector(`+js(quick(first))+`).disabled && document.querySelector(`+js(quick(second))+`).disabled && `+
		visible(row(first)+` [data-testid="approve-why"]`))

	// A click on the disabled button does nothing.
	p.do(click(quick(first)))
	// j then a shows the plan instead of approving it.
	p.do(key("j"), key("a"))
	p.wait("the first plan shown inline", visible(row(first)+` [data-testid="row-plan"] [data-testid="plan-card"]`)+
		` && !document.querySelector(`+js(quick(first))+`).disabled && !`+visible(row(first)+` [data-testid="approve-why"]`))
	if st := approvalStatus(t, a, first); st != "pending" {
		p.fail("showing the plan decided the request: %s", st)
	}
	// Only now does a approve it, confirmed by a second a.
	p.do(key("a"))
	p.wait("the confirmation", visible(`[data-testid="key-confirm"]`))
	p.do(key("a"))
	p.wait("the first to be approved", attrIs(fmt.Sprintf(`[data-testid="decided-row"][data-id=%q]`, first), "data-status", "approved"))
	p.waitConn("live")

	// With the mouse: show the plan, then approve.
	p.do(click(row(second) + ` [data-testid="show-plan"]`))
	p.wait("the second plan shown", visible(row(second)+` [data-testid="row-plan"] [data-testid="plan-entry"]`)+` && !document.querySelector(`+js(quick(second))+`).disabled`)
	shootGate(t, p, "approvals-inbox-shown")
	p.do(click(quick(second)))
	p.wait("the second to be approved", attrIs(fmt.Sprintf(`[data-testid="decided-row"][data-id=%q]`, second), "data-status", "approved"))

	// A form that skips the showing (enabled by hand, no proof) is refused by the server.
	third := a.submit(strings.Replace(threeSteps, "Refactor the parser", "Third plan", 1))
	p.waitConn("live")
	p.wait("the third row", exists(row(third)))
	p.eval(`(function(){ var b = document.querySelector(` + js(quick(third)) + `); b.disabled = false; b.click(); return "ok"; })()`)
	p.wait("the refusal", exists(`[data-testid="notice"]`))
	if txt := p.eval(`document.querySelector('[data-testid="notice"]').textContent`); !strings.Contains(txt, "not shown") {
		p.fail("the notice says %q", txt)
	}
	if st := approvalStatus(t, a, third); st != "pending" {
		p.fail("an approval without the plan shown was recorded: %s", st)
	}
}

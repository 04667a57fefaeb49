package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// An agent edits its plan; a person goes from the plan card to its history and reads what
// changed as entries (moved, edited word by word, status changed, added, removed), follows the
// revision links, and the diff is axe-clean in both themes and fits 320 px.
func TestHistoryDiffReadsAsChanges(t *testing.T) {
	src := axeSource(t)
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	startSession(a, "st1", "s1", "claude", "/work")
	a.ingest(planV1("s1",
		entry{"Read the router setup", "high", "completed"},
		entry{"Add a token bucket limiter", "high", "in_progress"},
		entry{"Write table tests", "medium", "pending"},
		entry{"Update the changelog", "low", "pending"},
		entry{"Deploy to staging", "low", "pending"}))
	a.ingest(planV1("s1",
		entry{"Update the changelog", "low", "pending"},
		entry{"Read the router setup", "high", "completed"},
		entry{"Add a sliding window limiter", "high", "completed"},
		entry{"Write table tests", "high", "pending"},
		entry{"Benchmark the limiter", "medium", "pending"}))

	p := openPage(t, a, "/sessions/s1")
	p.do(click(`[data-testid="history-link"]`))
	p.wait("the history page with its diff", exists(`[data-testid="plan-diff"] [data-testid="diff-change"]`))

	ops := p.eval(`Array.from(document.querySelectorAll('[data-testid="plan-diff"] [data-testid="diff-change"]')).map(c => c.dataset.op + " " + c.dataset.from + ">" + c.dataset.to).join("|")`)
	if want := "moved 4>1|same 1>2|edited 2>3|edited 3>4|removed 5>0|added 0>5"; ops != want {
		p.fail("the diff reads %q, want %q", ops, want)
	}
	edited := `[data-testid="diff-change"][data-op="edited"]`
	if got := p.eval(fmt.Sprintf(`document.querySelector(%s).querySelector("del").textContent + " / " + document.querySelector(%s).querySelector("ins").textContent`, js(edited), js(edited))); got != "token bucket / sliding window" {
		p.fail("the word edit reads %q", got)
	}
	// Not colour alone: each change says what it is in words, visible on the page.
	labels := p.eval(`Array.from(document.querySelectorAll('[data-testid="diff-label"]')).map(l => l.innerText.trim().toLowerCase()).join(",")`)
	if labels != "moved,edited,changed,removed,added" {
		p.fail("the change labels read %q", labels)
	}
	if got := p.eval(`document.querySelector('[data-testid="diff-status"]').innerText.replace(/\s+/g, " ").trim()`); !strings.Contains(got, "in progress") || !strings.Contains(got, "completed") {
		p.fail("the status change reads %q", got)
	}
	checkA11y(p, src, "history diff")
	shootGate(t, p, "history-diff")

	// The first revision (last in the list, newest first) is a link too; following it marks it as
	// the one shown.
	p.do(click(`[data-testid="revisions"] [data-testid="revision"][data-revision="1"] [data-testid="revision-link"]`))
	p.wait("revision 1 shown", `document.querySelector('[data-testid="revision"][aria-current="true"]') !== null &&
		document.querySelector('[data-testid="revision"][aria-current="true"]').textContent.includes("rev 1")`)
	// The first revision shows what the plan started with.
	if got := p.eval(`document.querySelector('[data-testid="diff-summary"]').textContent`); got != "Changes: 5 added." || !evalAs[bool](p, exists(`[data-testid="first-revision"]`)) {
		p.fail("revision 1 reads %q", got)
	}
}

// On the gate, an edit shows "your changes" under the editor as it is typed, the same diff the
// decided page shows; discarding the edit hides it.
func TestGateEditShowsYourChanges(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	id := a.submit(threeSteps)
	p := openPage(t, a, "/approvals/"+id)
	if got := p.eval(`String(document.querySelector('[data-testid="edit-diff"]').hidden)`); got != "true" {
		p.fail("an unedited plan shows a diff")
	}
	editFirstEntry(p, "Read the code twice")
	p.wait("your changes, word by word", `(() => { const d = document.querySelector('[data-testid="edit-diff"]');
		const ins = d && d.querySelector('[data-testid="diff-change"][data-op="edited"] ins');
		return !d.hidden && ins !== null && ins.textContent.trim() === "twice"; })()`)
	shootGate(t, p, "gate-your-changes")
	p.do(click(`[data-testid="discard-changes"]`))
	p.wait("the diff hidden again", `document.querySelector('[data-testid="edit-diff"]').hidden`)
}

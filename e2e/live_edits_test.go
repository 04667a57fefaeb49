package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestLiveEditsMatchAFreshPage: an overview and a session page follow many changes to a plan,
// most of them sent as edits to the markup the page holds, without a reload, and end up showing
// exactly what a fresh load of the same pages shows. Text with accents, an emoji and markup
// characters goes through the edits too.
func TestLiveEditsMatchAFreshPage(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	texts := []string{"Read the code — café", "Write the fix 🚀", `Escape <b>"this"</b> & that`, "Run the tests", "Ship it"}
	var session string
	plan := func(id string, doing int) string {
		es := make([]entry, len(texts))
		for i, text := range texts {
			st := "pending"
			switch {
			case i < doing:
				st = "completed"
			case i == doing:
				st = "in_progress"
			}
			es[i] = entry{fmt.Sprintf("%s (%s, step %d)", text, id, doing), "medium", st}
		}
		return planItems(session, id, es...)
	}
	for _, path := range []string{"/", "/sessions/s2"} {
		session = "s1"
		if path != "/" {
			session = "s2"
		}
		for _, id := range []string{"a", "b", "c"} {
			a.ingest(plan(id, 0))
		}
		p := openPage(t, a, path)
		p.wait("the cards", exists(`[data-testid="plan-card"][data-plan-id="b"]`))
		p.markNoReload()
		for doing := 1; doing <= len(texts); doing++ {
			a.ingest(plan("b", doing))
			p.wait(fmt.Sprintf("step %d shown", doing), fmt.Sprintf(`document.querySelector('[data-testid="plan-card"][data-plan-id="b"]').textContent.includes("step %d")`, doing))
		}
		a.ingest(plan("a", 2))
		p.wait("plan a moved on", `document.querySelector('[data-testid="plan-card"][data-plan-id="a"]').textContent.includes("step 2")`)
		p.requireNoReload()
		// The first change of an element the page was loaded with comes whole; then edits.
		if n := evalAs[int](p, `Number(document.body.dataset.edits || 0)`); n < len(texts)-1 {
			p.fail("%s: %d changes came as edits, want at least %d", path, n, len(texts)-1)
		}
		live := cardsMarkup(p)
		p.eval(`location.reload(); "ok"`)
		p.wait("the page again", `!window.__marker && !!document.querySelector('[data-testid="plan-card"][data-plan-id="b"]')`)
		if fresh := cardsMarkup(p); fresh != live {
			p.fail("%s: after live edits the cards show\n%s\na fresh page shows\n%s", path, live, fresh)
		}
	}
}

// cardsMarkup is the page's plan cards' markup, in id order, without what only animates.
func cardsMarkup(p *page) string {
	s := p.eval(`[...document.querySelectorAll('[data-testid="plan-card"]')].sort((x, y) => x.id < y.id ? -1 : 1).map((c) => {
		const k = c.cloneNode(true);
		[k, ...k.querySelectorAll(".flash, .dag-changed")].forEach((e) => e.classList.remove("flash", "dag-changed"));
		return k.outerHTML;
	}).join("\n")`)
	return strings.ReplaceAll(s, ` class=""`, "")
}

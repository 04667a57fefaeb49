package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The Modify editor shows each entry whole: a 120-character entry is neither cut off nor
// scrolled inside its field, at a desktop's width and a phone's; and once edited, Approve with
// changes is the one way on, in reach at the foot of the screen.
func TestGateEditorShowsEntriesWhole(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	long := strings.Repeat("Migrate the session table to the new schema ", 3)[:120]
	id := a.submit(`{"title":"A long entry","agent":"claude","sessionId":"s1","plan":{"type":"items","entries":[{"content":` + js(long) + `,"priority":"high","status":"pending"},{"content":"Run the tests","priority":"medium","status":"pending"}]}}`)
	p := openPage(t, a, "/approvals/"+id)
	p.do(key("m"))
	p.wait("the editor to open", `document.querySelector('[data-testid="editor"]').open`)
	field := editorRows + `:nth-child(1) [data-testid="editor-content"]`
	whole := `(() => { const f = document.querySelector(` + js(field) + `); return f.value === ` + js(long) +
		` && f.scrollHeight <= f.clientHeight + 2 && f.scrollWidth <= f.clientWidth + 2; })()`
	for _, width := range []int64{1280, 375} {
		p.do(chromedp.EmulateViewport(width, 900))
		p.wait(fmt.Sprintf("the layout at %d px", width), fmt.Sprintf(`document.documentElement.clientWidth === %d`, width))
		p.wait(fmt.Sprintf("the 120-character entry whole at %d px", width), whole)
		p.eval(`document.querySelector(` + js(field) + `).scrollIntoView({block: "center"}); "ok"`)
		if png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot()); err == nil {
			saveShot(t, fmt.Sprintf("editor-long-entry-%d.png", width), png)
		}
	}
	p.do(chromedp.EmulateViewport(1280, 900))
	editFirstEntry(p, long+" first")
	p.wait("the edited state", editedState)
	if n := evalAs[int](p, `Array.from(document.querySelectorAll('#decide-form button')).filter(b => !b.hidden && b.getClientRects().length && /Approve/.test(b.textContent)).length`); n != 1 {
		p.fail("%d approve buttons after an edit, want one", n)
	}
}

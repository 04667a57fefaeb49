package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"

	pdapp "github.com/plandash/plandash/internal/app"

	"github.com/chromedp/chromedp"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/web"
)

// startSharedApp is startApp with docker-agent's plans directory at plansDir.
func startSharedApp(t *testing.T, plansDir string) *app {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveConfig(t, ln, pdapp.Config{Config: web.Config{User: "e2e-user"}, PlansDir: plansDir})
}

// plansCLI runs `plandash plans --plans-dir DIR ARGS…` as a separate process, the way
// docker-agent (or a person) changes a plan behind the dashboard's back.
func plansCLI(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tool(t, "plandash"), append([]string{"plans", "--plans-dir", dir}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("plandash plans %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// setEditor replaces the editor's text the way a person's edit arrives: value, then an input
// event (the page's script listens for it).
func setEditor(p *page, text string) {
	p.t.Helper()
	p.eval(fmt.Sprintf(`(function(){ var a = document.querySelector('[data-testid="editor-content"]'); a.value = %s;
		a.dispatchEvent(new Event("input", {bubbles: true})); a.focus(); a.setSelectionRange(a.value.length, a.value.length); return "ok"; })()`, js(text)))
}

func readPlan(t *testing.T, dir, name string) sharedplans.Plan {
	t.Helper()
	p, ok, err := sharedplans.New(dir).Get(context.Background(), name)
	if err != nil || !ok {
		t.Fatalf("read %s from disk: ok=%v err=%v", name, ok, err)
	}
	return p
}

// TestSharedPlanLiveAndEdit: a plan written on disk by another process appears live on /shared;
// an edit made in the browser (with live preview) lands in the file; an edit based on a stale
// revision shows both versions instead of overwriting.
func TestSharedPlanLiveAndEdit(t *testing.T) {
	dir := t.TempDir()
	a := startSharedApp(t, dir)

	list := openPage(t, a, "/shared")
	list.wait("the empty state", visible(`[data-testid="shared-empty"]`))
	list.markNoReload()
	plansCLI(t, dir, "# Release 2.4\n\n- [x] build\n- [ ] ship\n", "write", "release", "--title", "Release 2.4", "--author", "architect", "--status", "drafting")
	card := `[data-testid="shared-card"][data-name="release"]`
	list.wait("the plan written by another process", exists(card))
	list.requireNoReload()
	for sel, want := range map[string]string{
		card + ` [data-testid="shared-title"]`:    "Release 2.4",
		card + ` [data-testid="shared-status"]`:   "drafting",
		card + ` [data-testid="shared-author"]`:   "architect",
		card + ` [data-testid="shared-revision"]`: "rev 1",
	} {
		if got := list.eval(fmt.Sprintf(`document.querySelector(%s).textContent.trim()`, js(sel))); got != want {
			list.fail("%s = %q, want %q", sel, got, want)
		}
	}
	list.wait("rendered markdown", exists(card+` [data-testid="shared-markdown"] h1`))
	list.wait("the empty state hidden", `!`+visible(`[data-testid="shared-empty"]`))
	plansCLI(t, dir, "", "status", "release", "in-progress")
	list.wait("the status change", attrIs(card, "data-revision", "2"))
	list.requireNoReload()

	// Edit in the browser: the preview follows the text, the save lands in the file.
	p := openPage(t, a, "/shared/release")
	if got := attr(p, `form[data-shared-editor]`, "data-opened"); got != "2" {
		p.fail("editor opened at revision %q, want 2", got)
	}
	setEditor(p, "# Release 2.4\n\n- [x] build\n- [ ] ship")
	p.do(typeInto(`[data-testid="editor-content"]`, "\n- [ ] tell the users"))
	p.wait("the live preview", `document.querySelector('[data-testid="editor-preview"]').textContent.includes("tell the users")`)
	p.do(chromedp.Clear(chromedp.CSS(`[data-testid="editor-status"]`)), typeInto(`[data-testid="editor-status"]`, "ready-for-build"))
	p.do(chromedp.Click(chromedp.CSS(`[data-testid="editor-save"]`)))
	p.wait("the saved notice", exists(`[data-testid="shared-notice"]`))
	p.waitConn("live")
	got := readPlan(t, dir, "release")
	if got.Revision != 3 || got.Status != "ready-for-build" || got.Content != "# Release 2.4\n\n- [x] build\n- [ ] ship\n- [ ] tell the users" || got.Author != "architect" {
		p.fail("file after the browser edit: %+v", got)
	}
	list.wait("the browser's edit on the list", attrIs(card, "data-revision", "3"))
	p.wait("the edit in the history", `document.querySelector('[data-testid="history-entry"]').textContent.includes("edited here")`)

	// Someone else saves while the page is open: the page says so at once, and a save of the
	// stale draft shows both versions and overwrites nothing.
	p.markNoReload()
	plansCLI(t, dir, "# Release 2.4\n\nRewritten by the builder.\n", "write", "release", "--author", "builder")
	p.wait("the live header at revision 4", `document.querySelector('[data-testid="shared-head"] [data-testid="shared-revision"]').textContent.trim() === "4"`)
	p.wait("the stale-draft notice", visible(`[data-testid="editor-stale"]`))
	p.requireNoReload()
	setEditor(p, "# Release 2.4\n\nMy browser draft.")
	p.do(chromedp.Click(chromedp.CSS(`[data-testid="editor-save"]`)))
	p.wait("the conflict", exists(`[data-testid="shared-conflict"]`))
	if !strings.Contains(p.eval(`document.querySelector('[data-testid="conflict-theirs"]').textContent`), "Rewritten by the builder") ||
		!strings.Contains(p.eval(`document.querySelector('[data-testid="conflict-mine"]').textContent`), "My browser draft") {
		p.fail("the conflict does not show both versions")
	}
	if got := readPlan(t, dir, "release"); got.Revision != 4 || !strings.Contains(got.Content, "Rewritten by the builder") {
		p.fail("the stale save overwrote the file: %+v", got)
	}
	shootShared(t, p, "shared-conflict")
	// Saving again from the conflict page is a deliberate overwrite of what it showed.
	p.do(chromedp.Click(chromedp.CSS(`[data-testid="editor-save"]`)))
	p.wait("the saved notice", exists(`[data-testid="shared-notice"]`))
	if got := readPlan(t, dir, "release"); got.Revision != 5 || got.Content != "# Release 2.4\n\nMy browser draft." {
		p.fail("file after the deliberate save: %+v", got)
	}
	shootShared(t, p, "shared-plan")
	shootShared(t, list, "shared-list")
}

// shootShared saves screenshots at 1280 and 320 px and fails on sideways overflow at 320.
func shootShared(t *testing.T, p *page, name string) {
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
			p.fail("%s at %d px: the document is %d px wide: horizontal overflow", name, width, sw)
		}
	}
	p.do(chromedp.EmulateViewport(1280, 800))
}

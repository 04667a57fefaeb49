package e2e

import (
	"testing"

	paging "github.com/plandash/plandash/internal/paging"
)

// cardNames is the script that lists a /shared page's cards by name, in page order.
const cardNames = `[...document.querySelectorAll('[data-testid="shared-card"]')].map(c => c.dataset.name).join(",")`

// TestSharedPagesKeepTheirRange: /shared is paged by name; a plan another process writes
// appears live on the page whose range it falls in, in name order, and on no other page.
func TestSharedPagesKeepTheirRange(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"bravo", "delta", "foxtrot"} {
		plansCLI(t, dir, "# "+n+"\n", "write", n)
	}
	a := startSharedApp(t, dir)

	first := openPage(t, a, "/shared?limit=2")
	first.wait("the first page", cardNames+` === "bravo,delta"`)
	first.wait("a link to the next page", exists(`[data-testid="pager-next"]`))
	second := openPage(t, a, "/shared?limit=2&cursor="+paging.Cursor{ID: "delta"}.String())
	second.wait("the second page", cardNames+` === "foxtrot"`)
	second.wait("a link back to the first page", exists(`[data-testid="pager-first"]`))
	first.markNoReload()
	second.markNoReload()

	plansCLI(t, dir, "# alpha\n", "write", "alpha")
	plansCLI(t, dir, "# echo\n", "write", "echo")
	plansCLI(t, dir, "# charlie\n", "write", "charlie")
	// Each socket gets the changes in order: once charlie shows, alpha and echo were handled.
	first.wait("alpha and charlie on the first page, in name order, echo not", cardNames+` === "alpha,bravo,charlie,delta"`)
	second.wait("echo on the second page, before foxtrot", cardNames+` === "echo,foxtrot"`)
	first.requireNoReload()
	second.requireNoReload()
}

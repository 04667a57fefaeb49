package templates

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
)

// TestEntryFieldsShown: an entry that differs in any one field of plans.Entry looks different on
// the plan page and in the plan editor, unless planstest.EntryHidden says no page shows the
// field. A field added to Entry and to neither would be stored but never seen or edited.
func TestEntryFieldsShown(t *testing.T) {
	base := planstest.FullEntry()
	render := func(c templ.Component) string {
		var b strings.Builder
		if err := c.Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	page := func(e plans.Entry) string {
		return render(itemsBody(plans.Plan{Kind: plans.KindItems, Entries: []plans.Entry{e}}, true))
	}
	for name, v := range planstest.Vary(t, base) {
		if _, hidden := planstest.EntryHidden[name]; hidden {
			continue
		}
		if page(v) == page(base) {
			t.Errorf("the plan page does not show Entry.%s", name)
		}
		if render(editorRow(v)) == render(editorRow(base)) {
			t.Errorf("the plan editor does not carry Entry.%s: approving with changes would drop it", name)
		}
	}
}

package views

import (
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// drawnAsCommitted reports whether plan pl's cards (on the overview and on its session's page)
// are drawn from the plan its commit wrote (the plan's change carries it as its
// live.Change.Data) rather than from the plan read back: the read, just after the commit emptied
// each reader's page cache, cost 30–80 µs against 5 µs warm, and was the slowest step between the
// commit and the first socket write. crowded is the sessions the commit revised more plans of
// than a group shows (crowdedSessions).
//
// Those drawn so are the items and markdown plans (a diagram follows its tool calls, a file plan
// its file, and a custom plan may show its raw text as sent), not removed, of sessions not
// crowded: they are their group's newest, so their cards are shown, for a commit stamps the
// plans it revises with its own time, later than any earlier commit's. (A clock stepped back
// could make that wrong; the group, redone after the commit, takes out a card pushed just past
// the cap.)
func drawnAsCommitted(pl *plans.Plan, crowded map[string]bool) bool {
	return !pl.Removed && (pl.Kind == plans.KindItems || pl.Kind == plans.KindMarkdown) && !crowded[pl.SessionID]
}

// crowdedSessions is the sessions with more plans revised (and not removed) than a group shows;
// nil when the commit revised no more than that in all, as most do.
func crowdedSessions(revised []*plans.Plan) map[string]bool {
	if len(revised) <= templates.MaxGroupPlans {
		return nil
	}
	n := map[string]int{}
	for _, pl := range revised {
		if !pl.Removed {
			n[pl.SessionID]++
		}
	}
	out := map[string]bool{}
	for id, k := range n {
		if k > templates.MaxGroupPlans {
			out[id] = true
		}
	}
	return out
}

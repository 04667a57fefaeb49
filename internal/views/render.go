package views

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// planViews prepares plans for drawing: file contents under the allowed roots, dag plans laid out.
// calls are the session's tool calls when the caller has them (nil: loaded if a dag needs them);
// inline says the plans go on a page of many, where big graphs are summarised.
func (p *Pages) planViews(ctx context.Context, ps []plans.Plan, calls []plans.ToolCall, inline bool) []templates.PlanView {
	out := make([]templates.PlanView, len(ps))
	var status func(string) (string, bool)
	for i, pl := range ps {
		out[i] = templates.PlanView{Plan: pl}
		switch {
		case pl.Removed:
		case pl.Kind == plans.KindFile:
			out[i].File = fileView(p.files, pl.URI)
		case pl.Kind == plans.KindDAG:
			if status == nil {
				status = p.toolStatuses(ctx, pl.SessionID, calls)
			}
			p.dagView(&out[i], status, inline)
		}
	}
	return out
}

// overviewFragments renders session id's group for the overview (a gone session's too, dimmed)
// from the plans it shows and the tally of the rest, as the overview's page reads them: whole, for
// a page that does not show it yet, and in parts for a page that does: its head, waits and "more"
// link, each card (the socket sends only those a page does not show already: a diagram's card
// changes with its tool calls, not only with its revisions), and the removal of cards that just
// fell out of it. Or its removal when the session has no plan left to show.
func (p *Pages) overviewFragments(ctx context.Context, id string, now time.Time) ([]live.Fragment, error) {
	// Two more plans than the group shows: the cards a page may still show after one commit
	// pushed newer plans in front of them.
	gs, _, err := p.plans.ListSessions(ctx, plans.SessionFilter{IDs: []string{id}, PlansPer: templates.MaxGroupPlans + 2}, plans.SessionCursor{}, 1)
	if err != nil {
		return nil, err
	}
	if len(gs) == 0 {
		return []live.Fragment{live.Remove(templates.GroupID(id))}, nil
	}
	g := gs[0]
	shown := g.Plans[:min(len(g.Plans), templates.MaxGroupPlans)]
	group := templates.NewGroup(g.Session, p.planViews(ctx, shown, nil, true), g.Tally, p.waitingBySession(ctx)[id], now, p.plans.Idle())
	gid := templates.GroupID(id)
	out := []live.Fragment{
		{ID: gid, Parent: "sessions", View: templates.SessionGroup(group, now), Whole: true},
		{ID: templates.GroupHeadID(id), Of: gid, View: templates.GroupHeadMain(group)},
		{ID: templates.GroupLastID(id), Of: gid, View: templates.GroupLast(group, now)},
		{ID: templates.GroupUsageID(id), Of: gid, View: templates.GroupUsage(group)},
		{ID: templates.GroupWaitingID(id), Of: gid, View: templates.GroupWaiting(group, now)},
		{ID: templates.GroupMoreID(id), Of: gid, View: templates.GroupMore(group)},
	}
	for _, v := range group.Plans {
		out = append(out, live.Fragment{ID: templates.PlanID(v.Plan), Parent: templates.GroupCardsID(id), Of: gid, View: templates.PlanCard(v)})
	}
	for _, gone := range g.Plans[len(shown):] {
		f := live.Remove(templates.PlanID(gone))
		f.Of = gid
		out = append(out, f)
	}
	return out, nil
}

// overviewRemoved takes a removed plan's card out of its group on a page that shows the group;
// a plan that changed otherwise is redrawn with its session (overviewFragments).
func (p *Pages) overviewRemoved(ctx context.Context, id, planID string) ([]live.Fragment, error) {
	pl, err := p.plans.Plan(ctx, id, planID)
	if err != nil || !pl.Removed {
		return nil, err
	}
	f := live.Remove(templates.PlanID(pl))
	f.Of = templates.GroupID(id)
	return []live.Fragment{f}, nil
}

// sessionFragments renders every live part of a session's page.
func (p *Pages) sessionFragments(ctx context.Context, d plans.SessionDetail, now time.Time) []live.Fragment {
	s := d.Session
	out := []live.Fragment{
		{ID: templates.SessionHeadID(s.ID), View: templates.SessionHead(s, p.waitingBySession(ctx)[s.ID], now)},
		{ID: templates.ToolCallsID(s.ID), View: templates.ToolCalls(s.ID, d.ToolCalls, d.ToolCallTotal)},
		{ID: templates.ActivityID(s.ID), View: templates.ActivityList(s.ID, d.Activity)},
	}
	return append(out, p.planFragments(ctx, d.Plans, d.ToolCalls)...)
}

// planFragments are plan cards as a session's page shows them.
func (p *Pages) planFragments(ctx context.Context, ps []plans.Plan, calls []plans.ToolCall) []live.Fragment {
	var out []live.Fragment
	for _, v := range p.planViews(ctx, ps, calls, false) {
		out = append(out, live.Fragment{ID: "w" + templates.PlanID(v.Plan), Parent: "plans", View: templates.SessionPlan(v)})
	}
	return out
}

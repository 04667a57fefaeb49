package views

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// Bounds of the overview: one page of sessions, however many are stored, and what one page may
// list of what waits for a person (the inbox has the rest).
const (
	// OverviewPageSize is how many sessions one page of the overview shows.
	OverviewPageSize = 50
	needsYouMax      = 20
	// facetSessions is how many recent sessions the filter menus draw their choices from.
	facetSessions = 200
	// sharedStripSize is how many shared plans the overview lists.
	sharedStripSize = 8
)

// sessionFilter is the store's filter for the overview's; waiting lists the sessions that wait
// for a person.
func sessionFilter(f templates.OverviewFilter, waiting map[string][]templates.Waiting) plans.SessionFilter {
	sf := plans.SessionFilter{Agent: f.Agent, Host: f.Host, Dir: f.Dir, Text: f.Q, PlansPer: templates.MaxGroupPlans}
	switch f.State {
	case templates.StateWaiting:
		sf.IDs = make([]string, 0, len(waiting))
		for id := range waiting {
			sf.IDs = append(sf.IDs, id)
		}
	case templates.StateActive:
		sf.State = plans.StateActive
	case templates.StateDone:
		sf.State = plans.StateDone
	case templates.StateGone:
		sf.State = plans.StateGone
	}
	return sf
}

// needsYou is what waits for a person across sessions, oldest first, at most needsYouMax: the
// one list of waits; total is the list's length.
func (p *Pages) needsYou(ctx context.Context) (needs []templates.Waiting, total int) {
	l := p.waitList(ctx)
	out := make([]templates.Waiting, 0, min(len(l.Waits), needsYouMax))
	for _, w := range l.Waits[:min(len(l.Waits), needsYouMax)] {
		out = append(out, waitingView(w))
	}
	return out, l.Waiting()
}

// filterOptions are the filter menus' choices: what the most recent sessions have, and the
// current choices; and, from the same sessions, when each agent was last heard from.
//
// The store lists sessions most recently seen first, so an agent's first session in the list
// is the newest it has: one query serves both. An agent none of the facetSessions most recent
// sessions came from is left out of "Heard from", which then names only agents heard from more
// recently anyway unless fewer than MaxHeardFrom agents share those sessions.
func (p *Pages) filterOptions(ctx context.Context, f templates.OverviewFilter) (templates.FilterOptions, []templates.HeardFrom) {
	recent, err := p.plans.Sessions(ctx, facetSessions)
	if err != nil {
		p.log.Warn("overview: listing recent sessions for the filters", "err", err)
	}
	agents := map[string]string{} // canonical id → display name: the filter matches by id
	hosts, dirs := map[string]bool{}, map[string]bool{}
	var heard []templates.HeardFrom
	heardOf := map[string]bool{} // canonical agent ids already in "Heard from"
	for _, sess := range recent {
		if a := cmp.Or(sess.Agent, sess.AgentTitle); a != "" {
			// One line per agent, however its sessions spelled it (claude-agent-acp and Claude
			// Code's hooks are one agent), under its display name when plandash knows it.
			if id := agentid.Of(a); !heardOf[id.ID] && len(heard) < templates.MaxHeardFrom {
				heardOf[id.ID] = true
				name := id.Name
				if name == strings.TrimSpace(a) { // not a known agent: the session's own title reads better
					name = sess.Name()
				}
				heard = append(heard, templates.HeardFrom{Key: id.ID, Name: name, At: sess.LastSeen})
			}
			if id := agentid.Of(a); agents[id.ID] == "" {
				agents[id.ID] = id.Name
			}
		}
		hosts[cmp.Or(sess.Host, plans.LocalHost)] = true
		if sess.Cwd != "" {
			dirs[sess.Cwd] = true
		}
	}
	// The current choices stay on offer.
	if id := agentid.Of(f.Agent); id.ID != "" && agents[id.ID] == "" {
		agents[id.ID] = id.Name
	}
	hosts[f.Host], dirs[f.Dir] = true, true
	delete(hosts, "")
	delete(dirs, "")
	keys := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	opts := templates.FilterOptions{Hosts: keys(hosts), Dirs: keys(dirs)}
	for id, name := range agents {
		opts.Agents = append(opts.Agents, templates.Choice{Value: id, Label: name})
	}
	slices.SortFunc(opts.Agents, func(a, b templates.Choice) int { return cmp.Compare(a.Value, b.Value) })
	return opts, heard
}

// Overview is one page of the overview: the sessions f selects, what waits for a person, and
// the filter menus' choices.
func (p *Pages) Overview(ctx context.Context, f templates.OverviewFilter) (templates.Overview, error) {
	seq := p.live.Seq() // before the store is read: anything newer reaches the page live
	after, err := plans.ParseSessionCursor(f.Before)
	if err != nil {
		return templates.Overview{}, err
	}
	waiting := p.waitingBySession(ctx)
	groups, more, err := p.plans.ListSessions(ctx, sessionFilter(f, waiting), after, OverviewPageSize)
	if err != nil {
		return templates.Overview{}, err
	}
	now := p.plans.Now()
	o := templates.Overview{Seq: seq, Now: now, Filter: f, Groups: make([]templates.Group, len(groups))}
	o.Options, o.Heard = p.filterOptions(ctx, f)
	o.Needs, o.NeedsTotal = p.needsYou(ctx)
	for i, g := range groups {
		o.Groups[i] = templates.NewGroup(g.Session, p.planViews(ctx, g.Plans, nil, true), g.Tally, waiting[g.Session.ID], now, p.plans.Idle())
	}
	if more && len(groups) > 0 {
		o.Older = plans.CursorOf(groups[len(groups)-1].Session).String()
	}
	return o, nil
}

// SharedStrip is the overview's view of the shared plans: the most recently updated, and how many
// there are.
func (p *Pages) SharedStrip(ctx context.Context) ([]templates.SharedPlan, int) {
	sums, total, err := p.shared.Strip(ctx, sharedStripSize)
	if err != nil {
		p.log.Warn("overview: listing shared plans", "err", err)
		return nil, 0
	}
	out := make([]templates.SharedPlan, len(sums))
	for i, sum := range sums {
		out[i] = templates.SharedPlan{Name: sum.Name, Title: sum.Title, Author: sum.Author, Status: sum.Status, Revision: sum.Revision, UpdatedAt: sum.UpdatedAt}
	}
	return out, total
}

// renderOverview redoes what a change touches on the overview: a session's group (its parts
// around the cards, or one card), a shared plan's row in the strip, or what needs a person.
func (p *Pages) renderOverview(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	switch c.Kind {
	case changeShared:
		return p.sharedRowFragment(ctx, c.ID)
	case changeWaits:
		needs, total := p.needsYou(ctx)
		return []live.Fragment{{ID: templates.NeedsYouID, View: templates.NeedsYou(needs, total, p.plans.Now())}}, nil
	}
	switch {
	case strings.HasPrefix(c.Part, partPlan):
		pl, _ := c.Data.(*plans.Plan)
		return p.overviewCard(ctx, c.ID, strings.TrimPrefix(c.Part, partPlan), pl)
	case c.Part != "":
		return []live.Fragment{cardGone(c.ID, strings.TrimPrefix(c.Part, partRemoved))}, nil
	}
	return p.overviewFragments(ctx, c.ID, p.plans.Now())
}

// overviewSnapshot is the overview's first page whole, unfiltered, and what needs a person, for a
// page from before a restart. A page showing a filter or an older page reloads instead (the page
// script knows which it shows; the snapshot cannot).
func (p *Pages) overviewSnapshot(ctx context.Context, _ string) ([]live.Fragment, error) {
	o, err := p.Overview(ctx, templates.OverviewFilter{})
	if err != nil {
		return nil, err
	}
	shows := make([]string, len(o.Groups))
	for i, g := range o.Groups {
		shows[i] = templates.GroupID(g.Session.ID)
	}
	return []live.Fragment{{ID: templates.NeedsYouID, View: templates.NeedsYou(o.Needs, o.NeedsTotal, o.Now)}, {ID: "sessions", View: templates.SessionGroups(o), Shows: shows}}, nil
}

// sharedRowFragment is a shared plan's row in the overview's strip.
func (p *Pages) sharedRowFragment(ctx context.Context, name string) ([]live.Fragment, error) {
	id := templates.SharedRowID(name)
	e, ok, err := p.shared.History().Latest(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok || e.Removed {
		return []live.Fragment{live.Remove(id)}, nil
	}
	return []live.Fragment{{ID: id, Parent: templates.SharedStripID, View: templates.SharedRow(sharedFromEntry(e), p.now())}}, nil
}

// overviewFragments renders session id's group for the overview (a gone session's too, dimmed):
// whole, for a page that does not show it yet, and in parts for a page that does: its head, waits
// and "more" link, the cards that change with more than their plan (a diagram follows its tool
// calls, a file plan its file), and the removal of cards that just fell out of it. Or its
// removal when the session has no plan left to show. A plan's own change redraws its card on its
// own (overviewCard), so the plans are named here, not read: reading and drawing every card of
// the group for each change to one of them was most of what a change cost.
func (p *Pages) overviewFragments(ctx context.Context, id string, now time.Time) ([]live.Fragment, error) {
	gid := templates.GroupID(id)
	// Two more plans than the group shows: the cards a page may still show after one commit
	// pushed newer plans in front of them.
	o, err := p.plans.Outline(ctx, id, templates.MaxGroupPlans+2, drawnWithMore)
	if errs.KindOf(err) == errs.NotFound || err == nil && o.Tally.Plans == 0 {
		return []live.Fragment{live.Remove(gid)}, nil
	}
	if err != nil {
		return nil, err
	}
	shown := o.Newest[:min(len(o.Newest), templates.MaxGroupPlans)]
	group := templates.GroupParts(o.Session, len(shown), o.Tally, p.waitingBySession(ctx)[id], now, p.plans.Idle())
	out := []live.Fragment{
		{ID: gid, Parent: "sessions", View: p.wholeGroup(ctx, id, now), Whole: true},
		{ID: templates.GroupHeadID(id), Of: gid, View: templates.GroupHeadMain(group)},
		{ID: templates.GroupLastID(id), Of: gid, View: templates.GroupLast(group, now)},
		{ID: templates.GroupUsageID(id), Of: gid, View: templates.GroupUsage(group)},
		{ID: templates.GroupWaitingID(id), Of: gid, View: templates.GroupWaiting(group, now)},
		{ID: templates.GroupMoreID(id), Of: gid, View: templates.GroupMore(group)},
	}
	cards := slices.DeleteFunc(o.Plans, func(pl plans.Plan) bool {
		return !slices.ContainsFunc(shown, func(r plans.PlanRef) bool { return r.ID == pl.ID })
	})
	for _, v := range p.planViews(ctx, cards, nil, true) {
		out = append(out, live.Fragment{ID: templates.PlanID(v.Plan), Parent: templates.GroupCardsID(id), Of: gid, View: templates.PlanCard(v)})
	}
	for _, gone := range o.Newest[len(shown):] {
		out = append(out, cardGone(id, gone.ID))
	}
	return out, nil
}

// drawnWithMore picks the plans whose cards show more than the plan: a diagram's nodes follow
// its tool calls, a file plan shows its file.
func drawnWithMore(r plans.PlanRef) bool { return r.Kind == plans.KindDAG || r.Kind == plans.KindFile }

// wholeGroup is session id's group whole, read when it is drawn: only a page that does not show
// the group yet is sent it (live.Fragment's Whole), and most changes reach none.
func (p *Pages) wholeGroup(ctx context.Context, id string, now time.Time) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		gs, _, err := p.plans.ListSessions(ctx, plans.SessionFilter{IDs: []string{id}, PlansPer: templates.MaxGroupPlans}, plans.SessionCursor{}, 1)
		if err != nil {
			return err
		}
		if len(gs) == 0 {
			return fmt.Errorf("session %s has no plan left to show", id)
		}
		g := gs[0]
		group := templates.NewGroup(g.Session, p.planViews(ctx, g.Plans, nil, true), g.Tally, p.waitingBySession(ctx)[id], now, p.plans.Idle())
		return templates.SessionGroup(group, now).Render(ctx, w)
	})
}

// overviewCard redraws plan planID's card in session id's group, for a page that shows the group,
// or takes it out when the plan is no longer among those the group shows (removed, or pushed out
// by newer ones). It is drawn from committed, the plan as its commit wrote it, when the commit
// showed the card is shown (drawnAsCommitted), else from the plan read back. The rest of the
// group is redone by the session's own change (overviewFragments), which a commit that changes a
// plan announces too.
func (p *Pages) overviewCard(ctx context.Context, id, planID string, committed *plans.Plan) ([]live.Fragment, error) {
	var pl plans.Plan
	if committed != nil {
		pl = *committed
	} else {
		read, shown, err := p.plans.RecentPlan(ctx, id, planID, templates.MaxGroupPlans)
		if err != nil {
			return nil, err
		}
		if !shown {
			return []live.Fragment{cardGone(id, planID)}, nil
		}
		pl = read
	}
	v := p.planViews(ctx, []plans.Plan{pl}, nil, true)[0]
	return []live.Fragment{{ID: templates.PlanID(v.Plan), Parent: templates.GroupCardsID(id), Of: templates.GroupID(id), View: templates.PlanCard(v)}}, nil
}

// cardGone takes plan planID's card out of session id's group on a page that shows the group. A
// plan removed and then revised again is numbered later than its removal, so pages keep the
// newer card.
func cardGone(id, planID string) live.Fragment {
	f := live.Remove(templates.PlanID(plans.Plan{SessionID: id, ID: planID}))
	f.Of = templates.GroupID(id)
	return f
}

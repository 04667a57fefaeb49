package web

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// renderer turns stored state into the fragments pages are made of.
type renderer struct {
	// waiting lists, by session, what waits for a person (plans at the gate, permissions).
	waiting func(ctx context.Context) map[string][]templates.Waiting
	live    *live.Live
	svc     *plans.Service
	files   *FileRoots
	dags    dagCache
}

// views prepares plans for drawing: file contents under the allowed roots, dag plans laid out.
// calls are the session's tool calls when the caller has them (nil: loaded if a dag needs them);
// inline says the plans go on a page of many, where big graphs are summarised.
func (r *renderer) views(ctx context.Context, ps []plans.Plan, calls []plans.ToolCall, inline bool) []templates.PlanView {
	out := make([]templates.PlanView, len(ps))
	var status func(string) (string, bool)
	for i, p := range ps {
		out[i] = templates.PlanView{Plan: p}
		switch {
		case p.Removed:
		case p.Kind == plans.KindFile:
			out[i].File = r.files.View(p.URI)
		case p.Kind == plans.KindDAG:
			if status == nil {
				status = r.toolStatuses(ctx, p.SessionID, calls)
			}
			r.dagView(&out[i], status, inline)
		}
	}
	return out
}

// overviewFragment renders a session's group for the overview (a gone session's too, dimmed),
// or its removal when the session has no plan left to show.
func (r *renderer) overviewFragment(ctx context.Context, d plans.SessionDetail, now time.Time) live.Fragment {
	var active []plans.Plan
	for _, p := range d.Plans {
		if !p.Removed {
			active = append(active, p)
		}
	}
	id := templates.GroupID(d.Session.ID)
	if len(active) == 0 {
		return live.Remove(id)
	}
	shown := active[:min(len(active), templates.MaxGroupPlans)]
	g := templates.NewGroup(d.Session, r.views(ctx, shown, d.ToolCalls, true), plans.TallyOf(active), r.waiting(ctx)[d.Session.ID], now, r.svc.Idle())
	return live.Fragment{ID: id, Parent: "sessions", View: templates.SessionGroup(g, now)}
}

// sessionFragments renders every live part of a session's page.
func (r *renderer) sessionFragments(ctx context.Context, d plans.SessionDetail, now time.Time) []live.Fragment {
	s := d.Session
	out := []live.Fragment{
		{ID: templates.SessionHeadID(s.ID), View: templates.SessionHead(s, r.waiting(ctx)[s.ID], now)},
		{ID: templates.ToolCallsID(s.ID), View: templates.ToolCalls(s.ID, d.ToolCalls, d.ToolCallTotal)},
		{ID: templates.ActivityID(s.ID), View: templates.ActivityList(s.ID, d.Activity)},
	}
	return append(out, r.planFragments(ctx, d.Plans, d.ToolCalls)...)
}

// planFragments are plan cards as a session's page shows them.
func (r *renderer) planFragments(ctx context.Context, ps []plans.Plan, calls []plans.ToolCall) []live.Fragment {
	var out []live.Fragment
	for _, p := range r.views(ctx, ps, calls, false) {
		out = append(out, live.Fragment{ID: "w" + templates.PlanID(p.Plan), Parent: "plans", View: templates.SessionPlan(p)})
	}
	return out
}

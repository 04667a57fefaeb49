package views

import (
	"context"

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

// planFragments are plan cards as a session's page shows them.
func (p *Pages) planFragments(ctx context.Context, ps []plans.Plan, calls []plans.ToolCall) []live.Fragment {
	var out []live.Fragment
	for _, v := range p.planViews(ctx, ps, calls, false) {
		out = append(out, live.Fragment{ID: "w" + templates.PlanID(v.Plan), Parent: "plans", View: templates.SessionPlan(v)})
	}
	return out
}

package web

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/web/templates"
)

// sharedHistoryLimit is how many of a plan's newest states its page lists.
const sharedHistoryLimit = 50

// sharedPlanFragments renders every live part of a plan's page.
func (s *Server) sharedPlanFragments(ctx context.Context, p templates.SharedPlan, now time.Time) ([]live.Fragment, error) {
	hist, err := s.shared.History().History(ctx, p.Name, sharedHistoryLimit)
	if err != nil {
		return nil, err
	}
	return []live.Fragment{
		{ID: templates.SharedHeadID(p.Name), View: templates.SharedPlanHead(p, now)},
		{ID: templates.SharedBodyID(p.Name), View: templates.SharedPlanBody(p)},
		{ID: templates.SharedHistoryID(p.Name), View: templates.SharedHistory(p.Name, revisionViews(hist), now)},
	}, nil
}

func sharedFromPlan(p sharedplans.Plan) templates.SharedPlan {
	return templates.SharedPlan{Name: p.Name, Title: p.Title, Author: p.Author, Status: p.Status,
		Content: p.Content, UpdatedAt: p.UpdatedAt, Revision: p.Revision}
}

func sharedFromEntry(e sharedplans.HistoryEntry) templates.SharedPlan {
	return templates.SharedPlan{Name: e.Name, Title: e.Title, Author: e.Author, Status: e.Status,
		Content: e.Content, UpdatedAt: e.UpdatedAt, Revision: e.Revision, Removed: e.Removed}
}

func revisionView(e sharedplans.HistoryEntry) templates.SharedRevision {
	return templates.SharedRevision{Seq: e.Seq, Revision: e.Revision, Removed: e.Removed, Title: e.Title,
		Author: e.Author, Status: e.Status, UpdatedAt: e.UpdatedAt, SeenAt: e.SeenAt, Source: e.Source}
}

func revisionViews(es []sharedplans.HistoryEntry) []templates.SharedRevision {
	out := make([]templates.SharedRevision, len(es))
	for i, e := range es {
		out[i] = revisionView(e)
	}
	return out
}

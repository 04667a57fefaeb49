package views

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// sessionDecisions are the gate's latest decisions on a session's requests, for its page.
func (p *Pages) sessionDecisions(ctx context.Context, sessionID string) ([]approval.AuditEvent, error) {
	events, _, err := p.gate.AuditPage(ctx, approval.AuditFilter{SessionID: sessionID}, paging.Request{Limit: sessionDecisionsShown * 3})
	if err != nil {
		return nil, err
	}
	var out []approval.AuditEvent
	for _, e := range events {
		if e.RequestID != "" && e.Event != approval.EventRequested && len(out) < sessionDecisionsShown {
			out = append(out, e)
		}
	}
	return out, nil
}

// sessionDecisionsShown is how many of the gate's decisions a session's page lists.
const sessionDecisionsShown = 10

// History is what a plan's history page and its API twin show.
type History struct {
	Page     templates.HistoryPage
	From, To plans.Plan // the two revisions compared
}

// History loads what the history page at u shows and no more: one page of the revision list
// (?cursor=&limit=, without plans) and the two revisions compared (?from=&to=), each read on
// its own.
func (p *Pages) History(ctx context.Context, sid, pid string, u *url.URL) (History, error) {
	var out History
	h := &out.Page
	sess, err := p.plans.SessionOnly(ctx, sid)
	if err != nil {
		return out, err
	}
	q := u.Query()
	pr, err := paging.ParseRequest(q.Get("cursor"), q.Get("limit"))
	if err != nil {
		return out, err
	}
	revs, next, newest, err := p.plans.RevisionsPage(ctx, sid, pid, pr)
	if err != nil {
		return out, err
	}
	*h = templates.HistoryPage{Session: sess, PlanID: pid, Revisions: revs, Newest: newest, To: newest, From: max(newest-1, 1)}
	if !next.IsZero() {
		h.Older = paging.NextURL(u, next)
	}
	if !pr.After.IsZero() {
		first := u.Query()
		first.Del("cursor")
		h.Newer = "?" + first.Encode()
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"from", &h.From}, {"to", &h.To}} {
		if v := q.Get(f.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > newest {
				return out, errs.Errorf(errs.Invalid, "%s must be a revision between 1 and %d", f.name, newest)
			}
			*f.dst = n
		}
	}
	fromRev, err := p.plans.RevisionAt(ctx, sid, pid, h.From)
	if err != nil {
		return out, err
	}
	toRev, err := p.plans.RevisionAt(ctx, sid, pid, h.To)
	if err != nil {
		return out, err
	}
	out.From, out.To = fromRev.Plan, toRev.Plan
	base := out.From
	if h.From == 1 && h.To == 1 {
		// The first revision against nothing: what the plan started with, all of it new.
		h.First = true
		base = plans.Plan{Kind: out.To.Kind, Type: out.To.Type}
	}
	h.Changes = plans.StructDiff(base, out.To)
	return out, nil
}

// DAGDiff is the calls added, removed and changed between two revisions of a tool-call plan,
// which the history page lists (the API leaves it out); nil when either is not a graph.
func (p *Pages) DAGDiff(from, to plans.Plan) *dag.PlanDiff {
	if from.Kind != plans.KindDAG || to.Kind != plans.KindDAG {
		return nil
	}
	a, errA := p.dags.get(from)
	b, errB := p.dags.get(to)
	if errA != nil || errB != nil || a.Plan == nil || b.Plan == nil {
		return nil
	}
	d := dag.Diff(a.Plan, b.Plan)
	return &d
}

// Session is a session's page.
func (p *Pages) Session(ctx context.Context, id string) (templates.SessionPage, error) {
	d, err := p.sessionDetail(ctx, id)
	if err != nil {
		return templates.SessionPage{}, err
	}
	decisions, err := p.sessionDecisions(ctx, d.Session.ID)
	if err != nil {
		return templates.SessionPage{}, err
	}
	return templates.SessionPage{Detail: d, Plans: p.planViews(ctx, d.Plans, d.ToolCalls, false),
		Waiting: p.waitingBySession(ctx)[d.Session.ID], Now: p.plans.Now(), Decisions: decisions}, nil
}

// EmbedSession is a session's page in an IDE's panel: its big graphs summarised, without the
// gate's decisions.
func (p *Pages) EmbedSession(ctx context.Context, id string) (templates.SessionPage, error) {
	d, err := p.sessionDetail(ctx, id)
	if err != nil {
		return templates.SessionPage{}, err
	}
	return templates.SessionPage{Detail: d, Plans: p.planViews(ctx, d.Plans, d.ToolCalls, true),
		Waiting: p.waitingBySession(ctx)[d.Session.ID], Now: p.plans.Now()}, nil
}

// sessionDetail loads a session for its page, numbered in the live sequence: the number is read
// before the store, so anything that changes after reaches the page live or by catch-up.
func (p *Pages) sessionDetail(ctx context.Context, id string) (plans.SessionDetail, error) {
	seq := p.live.Seq()
	d, err := p.plans.Session(ctx, id)
	d.Seq = seq
	return d, err
}

// renderSession is every live part of a session's page, for a page from before a restart.
func (p *Pages) renderSession(ctx context.Context, id string) ([]live.Fragment, error) {
	d, err := p.plans.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	return p.sessionFragments(ctx, d, p.plans.Now()), nil
}

// renderSessionPart redoes the part of a session's page that changed: its head, one plan card,
// one tool call row (and the diagrams that follow tool calls), or its recent activity. Its cost
// does not grow with the session's past.
func (p *Pages) renderSessionPart(ctx context.Context, id string, c live.Change) ([]live.Fragment, error) {
	now := p.plans.Now()
	switch {
	case c.Part == "":
		sess, err := p.plans.SessionOnly(ctx, id)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.SessionHeadID(id), View: templates.SessionHead(sess, p.waitingBySession(ctx)[id], now)}}, nil
	case c.Part == partActivity:
		acts, err := p.plans.RecentActivity(ctx, id)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.ActivityID(id), View: templates.ActivityList(id, acts)}}, nil
	case strings.HasPrefix(c.Part, partPlan):
		if committed, ok := c.Data.(*plans.Plan); ok { // as its commit wrote it (drawnAsCommitted)
			return p.planFragments(ctx, []plans.Plan{*committed}, nil), nil
		}
		pl, err := p.plans.Plan(ctx, id, strings.TrimPrefix(c.Part, partPlan))
		if err != nil {
			return nil, err
		}
		return p.planFragments(ctx, []plans.Plan{pl}, nil), nil
	case c.Part == partCallCount:
		total, err := p.plans.ToolCallCount(ctx, id)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.ToolCallsHeadID(id), View: templates.ToolCallsHead(id, total)}}, nil
	case strings.HasPrefix(c.Part, partCall):
		t, err := p.plans.ToolCall(ctx, id, strings.TrimPrefix(c.Part, partCall))
		if err != nil {
			return nil, err
		}
		// The count is not recounted here: on a session with thousands of calls that costs more
		// than the rest of the change, and only a new call changes it (partCallCount).
		out := []live.Fragment{
			{ID: templates.ToolCallRowID(id, t.ID), Parent: templates.ToolCallListID(id), View: templates.ToolCallRow(t)},
		}
		// Diagrams whose nodes follow tool calls show the new status.
		d, err := p.plans.SessionPlans(ctx, id)
		if err != nil {
			return nil, err
		}
		var dags []plans.Plan
		for _, pl := range d.Plans {
			if pl.Kind == plans.KindDAG && !pl.Removed {
				dags = append(dags, pl)
			}
		}
		return append(out, p.planFragments(ctx, dags, []plans.ToolCall{t})...), nil
	}
	return nil, fmt.Errorf("no part %q of a session", c.Part)
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

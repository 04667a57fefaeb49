package web

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// Topics the socket subscribes to.
const topicAll = "all"

func sessionTopic(id string) string { return "session:" + id }

// frame is what the socket sends: replace element ID with HTML (remove it when HTML is empty),
// or insert it into Parent when the page does not have it yet.
type frame struct {
	T      string `json:"t"`
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	Seq    uint64 `json:"seq"`
	HTML   string `json:"html"`
}

// renderer turns stored state into the fragments pages are made of.
type renderer struct {
	svc   *plans.Service
	files *FileRoots
	dags  dagCache
}

// views prepares plans for drawing: file contents under the allowed roots, dag plans laid out.
// calls are the session's tool calls when the caller has them (nil: loaded if a dag needs them);
// inline says the plans go on a page of many, where big graphs are summarised.
func (r *renderer) views(ctx context.Context, ps []plans.Plan, calls []plans.ToolCall, inline bool) []templates.PlanView {
	out := make([]templates.PlanView, len(ps))
	var load func() []plans.ToolCall
	for i, p := range ps {
		out[i] = templates.PlanView{Plan: p}
		switch {
		case p.Removed:
		case p.Kind == plans.KindFile:
			out[i].File = r.files.View(p.URI)
		case p.Kind == plans.KindDAG:
			if load == nil {
				load = r.toolCallsOnce(ctx, p.SessionID, calls)
			}
			r.dagView(&out[i], load, inline)
		}
	}
	return out
}

func (r *renderer) overview(ctx context.Context) (templates.Overview, error) {
	groups, seq, err := r.svc.Overview(ctx)
	if err != nil {
		return templates.Overview{}, err
	}
	o := templates.Overview{Seq: seq, Now: r.svc.Now(), Groups: make([]templates.Group, len(groups))}
	for i, g := range groups {
		o.Groups[i] = templates.Group{Session: g.Session, Plans: r.views(ctx, g.Plans, nil, true)}
	}
	return o, nil
}

// overviewFragment renders a session's group for the overview, or its removal when the session
// has nothing active to show.
func (r *renderer) overviewFragment(ctx context.Context, d plans.SessionDetail, now time.Time) (hub.Fragment, bool, error) {
	var active []plans.Plan
	if d.Session.Active(now, r.svc.Idle()) {
		for _, p := range d.Plans {
			if !p.Removed {
				active = append(active, p)
			}
		}
	}
	id := templates.GroupID(d.Session.ID)
	if len(active) == 0 {
		return encode(id, "", d.Session.Seq, nil), false, nil
	}
	g := templates.Group{Session: d.Session, Plans: r.views(ctx, active, d.ToolCalls, true)}
	return encode(id, "sessions", d.Session.Seq, templates.SessionGroup(g, now)), true, nil
}

// sessionFragments renders every live part of a session's page.
func (r *renderer) sessionFragments(ctx context.Context, d plans.SessionDetail, now time.Time) []hub.Fragment {
	s := d.Session
	out := []hub.Fragment{
		encode(templates.SessionHeadID(s.ID), "", s.Seq, templates.SessionHead(s, now)),
		encode(templates.ToolCallsID(s.ID), "", s.Seq, templates.ToolCalls(s.ID, d.ToolCalls)),
		encode(templates.ActivityID(s.ID), "", s.Seq, templates.ActivityList(s.ID, d.Activity)),
	}
	for _, p := range r.views(ctx, d.Plans, d.ToolCalls, false) {
		out = append(out, encode("w"+templates.PlanID(p.Plan), "plans", p.Seq, templates.SessionPlan(p)))
	}
	return out
}

// encode renders c once into the bytes every subscriber is sent.
func encode(id, parent string, seq uint64, c templ.Component) hub.Fragment {
	var html bytes.Buffer
	if c != nil {
		if err := c.Render(context.Background(), &html); err != nil {
			html.Reset()
		}
	}
	b, _ := json.Marshal(frame{T: "f", ID: id, Parent: parent, Seq: seq, HTML: html.String()})
	return hub.Fragment{Key: id, Seq: seq, Data: b}
}

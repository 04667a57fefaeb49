package web

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/changes"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/web/templates"
)

// What changes, the kinds of live.Change the domain announces, and the topics the socket
// subscribes to: named once in package changes, for the announcers, the PostgreSQL notes, the
// pages and main.js alike.
const (
	changeSession     = changes.Session
	changeApproval    = changes.Approval
	changeRules       = changes.Rules
	changePermissions = changes.Permissions
	changeShared      = changes.Shared
	changeWaits       = changes.Waits
	beganPrefix       = changes.BeganPrefix

	topicAll       = changes.TopicAll
	topicSession   = changes.TopicSession
	topicApprovals = changes.TopicApprovals
	topicApproval  = changes.TopicApproval
	topicShared    = changes.TopicShared
	topicGate      = changes.TopicGate
	topicWait      = changes.TopicWait
)

// registerTopics declares every live page: which changes it shows and how it renders them.
func (s *Server) registerTopics() {
	s.live.Register(live.Topic{Name: topicAll, Kinds: []string{changeSession, changeShared, changeWaits}, Parts: true, PartPrefixes: []string{partPlan}, Render: s.renderOverview, Snapshot: s.overviewSnapshot})
	s.live.Register(live.Topic{Name: topicSession, Keyed: true, Parts: true, Kinds: []string{changeSession}, Render: s.renderSessionPart, Snapshot: s.renderSession})
	s.live.Register(live.Topic{Name: topicApprovals, Kinds: []string{changeApproval, changeRules, changePermissions, changeWaits}, Render: s.renderInbox})
	s.live.Register(live.Topic{Name: topicApproval, Keyed: true, Kinds: []string{changeApproval}, Render: s.renderApprovalPanel})
	s.live.Register(live.Topic{Name: topicShared, Kinds: []string{changeShared}, Render: s.renderSharedCard})
	s.live.Register(live.Topic{Name: topicShared, Keyed: true, Kinds: []string{changeShared}, Render: s.renderSharedPlan})
	s.live.Register(live.Topic{Name: topicGate, Kinds: []string{changeWaits}, Render: s.renderPendingCount})
	s.live.Register(live.Topic{Name: topicWait, Keyed: true, Kinds: []string{changeWaits}, Render: s.renderWaitPanel})
	for _, k := range changes.Kinds() {
		if !s.live.Shows(k) {
			panic("web: no live topic shows changes of kind " + k) // a change of it would reach no page
		}
	}
}

// sessionsCommitted is the plans service's listener: every touched session as a whole (the
// overview's group, the page's head), and the parts that changed, which a session's page redoes
// on their own.
func (s *Server) sessionsCommitted(c plans.Committed) {
	cs := make([]live.Change, 0, len(c.Sessions)+len(c.Plans)+len(c.ToolCalls)+len(c.Activity))
	for _, id := range c.Sessions {
		cs = append(cs, live.Change{Kind: changeSession, ID: id})
	}
	for _, p := range c.Plans {
		cs = append(cs, live.Change{Kind: changeSession, ID: p.SessionID, Part: partPlan + p.PlanID})
	}
	for _, t := range c.ToolCalls {
		cs = append(cs, live.Change{Kind: changeSession, ID: t.SessionID, Part: partCall + t.PlanID})
	}
	for _, id := range c.CallsAdded {
		cs = append(cs, live.Change{Kind: changeSession, ID: id, Part: partCallCount})
	}
	for _, id := range c.Activity {
		cs = append(cs, live.Change{Kind: changeSession, ID: id, Part: partActivity})
	}
	s.live.Announce(cs...)
}

// Parts of a session that its page redoes on their own.
const (
	partPlan      = changes.PartPlan
	partCall      = changes.PartCall
	partCallCount = changes.PartCallCount
	partActivity  = changes.PartActivity
)

// gateChanged is the gate's listener.
func (s *Server) gateChanged(c approval.Change) {
	switch {
	case c.Rule != nil:
		s.live.Announce(live.Change{Kind: changeRules})
	case c.Request != nil:
		cs := []live.Change{{Kind: changeApproval, ID: c.Request.ID}}
		if id := c.Request.SessionID; id != "" {
			cs = append(cs, live.Change{Kind: changeSession, ID: id}) // its page says it waits
		}
		s.live.Announce(cs...)
	}
}

// permissionsChanged is the relayed permissions' listener: the inbox, the count, and the pages of
// the sessions that wait (or no longer wait) on one.
func (s *Server) permissionsChanged(string) {
	cs := []live.Change{{Kind: changePermissions}}
	seen := map[string]bool{}
	for _, p := range s.perms.List() {
		if p.SessionID != "" && !seen[p.SessionID] {
			seen[p.SessionID] = true
			cs = append(cs, live.Change{Kind: changeSession, ID: p.SessionID})
		}
	}
	s.live.Announce(cs...)
}

// waitingBySession lists what waits for a person, by session, oldest first: the one list,
// without what was answered in the terminal (its outcome not known yet, it waits on nobody).
func (s *Server) waitingBySession(ctx context.Context) map[string][]templates.Waiting {
	out := map[string][]templates.Waiting{}
	for _, w := range s.waitList(ctx).Waits {
		if w.SessionID != "" && w.Answered == "" {
			out[w.SessionID] = append(out[w.SessionID], waitingView(w))
		}
	}
	return out
}

// waitList is the one list of waits; a failure to read it is logged and shows an empty list.
func (s *Server) waitList(ctx context.Context) waits.List {
	l, err := s.waits.List(ctx)
	if err != nil {
		s.log.Error("listing waits", "err", err)
	}
	return l
}

// inboxWaitsFragments is the inbox's section of the one list.
func (s *Server) inboxWaitsFragments(ctx context.Context) ([]live.Fragment, error) {
	l, err := s.waits.List(ctx)
	if err != nil {
		return nil, err
	}
	return []live.Fragment{{ID: templates.InboxWaitsID, View: templates.InboxWaits(l.Waits, s.plans.Now())}}, nil
}

// waitingView is a wait as the strip and a session's head show it.
func waitingView(w waits.Wait) templates.Waiting {
	who := w.AgentName
	if w.Cwd != "" {
		who = cmp.Or(who, "an agent") + " · " + w.Cwd
	}
	return templates.Waiting{Title: w.Title, Href: w.URL, Since: w.Since, Who: who, Kind: string(w.Kind), Answered: w.Answered}
}

func (s *Server) renderOverview(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	switch c.Kind {
	case changeShared:
		return s.sharedRowFragment(ctx, c.ID)
	case changeWaits:
		needs, total := s.needsYou(ctx)
		return []live.Fragment{{ID: templates.NeedsYouID, View: templates.NeedsYou(needs, total, s.plans.Now())}}, nil
	}
	if c.Part != "" {
		return s.render.overviewRemoved(ctx, c.ID, strings.TrimPrefix(c.Part, partPlan))
	}
	return s.render.overviewFragments(ctx, c.ID, s.plans.Now())
}

// overviewSnapshot is the overview's first page whole, unfiltered, and what needs a person, for a
// page from before a restart. A page showing a filter or an older page reloads instead (the page
// script knows which it shows; the snapshot cannot).
func (s *Server) overviewSnapshot(ctx context.Context, _ string) ([]live.Fragment, error) {
	o, err := s.overviewData(ctx, templates.OverviewFilter{})
	if err != nil {
		return nil, err
	}
	shows := make([]string, len(o.Groups))
	for i, g := range o.Groups {
		shows[i] = templates.GroupID(g.Session.ID)
	}
	return []live.Fragment{{ID: templates.NeedsYouID, View: templates.NeedsYou(o.Needs, o.NeedsTotal, o.Now)}, {ID: "sessions", View: templates.SessionGroups(o), Shows: shows}}, nil
}

// renderSession is every live part of a session's page, for a page from before a restart.
func (s *Server) renderSession(ctx context.Context, id string) ([]live.Fragment, error) {
	d, err := s.plans.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.render.sessionFragments(ctx, d, s.plans.Now()), nil
}

// renderSessionPart redoes the part of a session's page that changed: its head, one plan card,
// one tool call row (and the diagrams that follow tool calls), or its recent activity. Its cost
// does not grow with the session's past.
func (s *Server) renderSessionPart(ctx context.Context, id string, c live.Change) ([]live.Fragment, error) {
	now := s.plans.Now()
	switch {
	case c.Part == "":
		sess, err := s.plans.SessionOnly(ctx, id)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.SessionHeadID(id), View: templates.SessionHead(sess, s.waitingBySession(ctx)[id], now)}}, nil
	case c.Part == partActivity:
		acts, err := s.plans.RecentActivity(ctx, id)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.ActivityID(id), View: templates.ActivityList(id, acts)}}, nil
	case strings.HasPrefix(c.Part, partPlan):
		p, err := s.plans.Plan(ctx, id, strings.TrimPrefix(c.Part, partPlan))
		if err != nil {
			return nil, err
		}
		return s.render.planFragments(ctx, []plans.Plan{p}, nil), nil
	case c.Part == partCallCount:
		total, err := s.plans.ToolCallCount(ctx, id)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.ToolCallsHeadID(id), View: templates.ToolCallsHead(id, total)}}, nil
	case strings.HasPrefix(c.Part, partCall):
		t, err := s.plans.ToolCall(ctx, id, strings.TrimPrefix(c.Part, partCall))
		if err != nil {
			return nil, err
		}
		// The count is not recounted here: on a session with thousands of calls that costs more
		// than the rest of the change, and only a new call changes it (partCallCount).
		out := []live.Fragment{
			{ID: templates.ToolCallRowID(id, t.ID), Parent: templates.ToolCallListID(id), View: templates.ToolCallRow(t)},
		}
		// Diagrams whose nodes follow tool calls show the new status.
		d, err := s.plans.SessionPlans(ctx, id)
		if err != nil {
			return nil, err
		}
		var dags []plans.Plan
		for _, p := range d.Plans {
			if p.Kind == plans.KindDAG && !p.Removed {
				dags = append(dags, p)
			}
		}
		return append(out, s.render.planFragments(ctx, dags, []plans.ToolCall{t})...), nil
	}
	return nil, fmt.Errorf("no part %q of a session", c.Part)
}

func (s *Server) renderInbox(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	now := s.gate.Now()
	switch c.Kind {
	case changeRules:
		rules, err := s.gate.Rules(ctx, false)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.ApprovalRulesID, View: templates.ApprovalRules(rules, now)}}, nil
	case changePermissions:
		return []live.Fragment{{ID: templates.AcpPermissionsID, View: templates.AcpPermissions(s.acpPermissionViews(), now)}}, nil
	case changeWaits:
		return s.inboxWaitsFragments(ctx)
	}
	r, err := s.gate.Get(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if !r.Decided() {
		return []live.Fragment{{ID: templates.ApprovalRowID(r.ID), Parent: templates.ApprovalsPendingID, View: templates.ApprovalRow(r.Summary(), now)}}, nil
	}
	return []live.Fragment{
		live.Remove(templates.ApprovalRowID(r.ID)),
		{ID: templates.DecidedRowID(r.ID), Parent: templates.ApprovalsDecidedID, View: templates.DecidedRow(r, now)},
	}, nil
}

func (s *Server) renderApprovalPanel(ctx context.Context, id string, _ live.Change) ([]live.Fragment, error) {
	r, err := s.gate.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return []live.Fragment{panelFragment(r, s.gate.Now())}, nil
}

func panelFragment(r approval.Request, now time.Time) live.Fragment {
	return live.Fragment{ID: templates.ApprovalPanelID(r.ID), View: templates.ApprovalPanel(templates.ApprovalPage{Request: r, Now: now})}
}

// renderPendingCount is the navigation's count of what waits for a person (the one list), with
// the title of the wait that just began for the notification.
func (s *Server) renderPendingCount(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	l, err := s.waits.List(ctx)
	if err != nil {
		return nil, err
	}
	latest := ""
	if strings.HasPrefix(c.ID, beganPrefix) && len(l.Waits) > 0 {
		newest := l.Waits[0]
		for _, w := range l.Waits {
			if !w.Since.Before(newest.Since) {
				newest = w
			}
		}
		latest = newest.Title
	}
	return []live.Fragment{{ID: templates.PendingCountID, View: templates.PendingCount(l.Waiting(), latest, l.Seq)}}, nil
}

// waitsChanged is the list's listener: the count, the strip, the inbox, and the session that
// waits (or no longer waits).
func (s *Server) waitsChanged(c waits.Change) {
	id := c.ID
	if c.Began != "" {
		id = beganPrefix + id
	}
	s.live.Announce(live.Change{Kind: changeWaits, ID: id})
}

// renderSharedCard is a shared plan's card on the list: as last recorded, or why its file cannot
// be read, or its removal.
func (s *Server) renderSharedCard(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	id := templates.SharedCardID(c.ID)
	if why, bad := s.shared.Bad(c.ID); bad {
		return []live.Fragment{{ID: id, Parent: templates.SharedListID, View: templates.SharedCard(templates.SharedPlan{Name: c.ID, Err: why}, s.now())}}, nil
	}
	e, ok, err := s.shared.History().Latest(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if !ok || e.Removed {
		return []live.Fragment{live.Remove(id)}, nil
	}
	return []live.Fragment{{ID: id, Parent: templates.SharedListID, View: templates.SharedCard(sharedFromEntry(e), s.now())}}, nil
}

// renderSharedPlan is every live part of a shared plan's page.
func (s *Server) renderSharedPlan(ctx context.Context, name string, _ live.Change) ([]live.Fragment, error) {
	if why, bad := s.shared.Bad(name); bad {
		return []live.Fragment{{ID: templates.SharedBodyID(name), View: templates.SharedPlanBody(templates.SharedPlan{Name: name, Err: why})}}, nil
	}
	e, ok, err := s.shared.History().Latest(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.Errorf(errs.NotFound, "no history of shared plan %q", name)
	}
	return s.sharedPlanFragments(ctx, sharedFromEntry(e), s.now())
}

// sharedRowFragment is a shared plan's row in the overview's strip.
func (s *Server) sharedRowFragment(ctx context.Context, name string) ([]live.Fragment, error) {
	id := templates.SharedRowID(name)
	e, ok, err := s.shared.History().Latest(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok || e.Removed {
		return []live.Fragment{live.Remove(id)}, nil
	}
	p := sharedFromEntry(e)
	return []live.Fragment{{ID: id, Parent: templates.SharedStripID, View: templates.SharedRow(p, s.now())}}, nil
}

package views

import (
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/changes"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
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
func (p *Pages) registerTopics() {
	p.live.Register(live.Topic{Name: topicAll, Kinds: []string{changeSession, changeShared, changeWaits}, Parts: true, PartPrefixes: []string{partPlan, partRemoved}, Render: p.renderOverview, Snapshot: p.overviewSnapshot})
	p.live.Register(live.Topic{Name: topicSession, Keyed: true, Parts: true, PartPrefixes: []string{partPlan, partCall, partCallCount, partActivity}, Kinds: []string{changeSession}, Render: p.renderSessionPart, Snapshot: p.renderSession})
	p.live.Register(live.Topic{Name: topicApprovals, Kinds: []string{changeApproval, changeRules, changePermissions, changeWaits}, Render: p.renderInbox})
	p.live.Register(live.Topic{Name: topicApproval, Keyed: true, Kinds: []string{changeApproval}, Render: p.renderApprovalPanel})
	p.live.Register(live.Topic{Name: topicShared, Kinds: []string{changeShared}, Render: p.renderSharedCard})
	p.live.Register(live.Topic{Name: topicShared, Keyed: true, Kinds: []string{changeShared}, Render: p.renderSharedPlan})
	p.live.Register(live.Topic{Name: topicGate, Kinds: []string{changeWaits}, Render: p.renderPendingCount})
	p.live.Register(live.Topic{Name: topicWait, Keyed: true, Kinds: []string{changeWaits}, Render: p.renderWaitPanel})
	for _, k := range changes.Kinds() {
		if !p.live.Shows(k) {
			panic("views: no live topic shows changes of kind " + k) // a change of it would reach no page
		}
	}
}

// sessionsCommitted is the plans service's listener: the parts that changed, which pages redo
// on their own (a plan's card on the overview and on its session's page), then every touched
// session as a whole (the overview's group around its cards, the page's head). The parts go
// first: they are what a person watches change, and workers take changes in the order announced.
func (p *Pages) sessionsCommitted(c plans.Committed) {
	cs := make([]live.Change, 0, len(c.Sessions)+2*len(c.Plans)+len(c.ToolCalls)+len(c.Activity))
	crowded := crowdedSessions(c.Plans)
	for _, pl := range c.Plans {
		ch := live.Change{Kind: changeSession, ID: pl.SessionID, Part: partPlan + pl.ID}
		if drawnAsCommitted(pl, crowded) {
			ch.Data = pl
		}
		cs = append(cs, ch)
	}
	for _, pl := range c.Plans {
		if pl.Removed {
			cs = append(cs, live.Change{Kind: changeSession, ID: pl.SessionID, Part: partRemoved + pl.ID})
		}
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
	for _, id := range c.Sessions {
		cs = append(cs, live.Change{Kind: changeSession, ID: id})
	}
	p.live.Announce(cs...)
}

// Parts of a session that its pages redo on their own.
const (
	partPlan      = changes.PartPlan
	partRemoved   = changes.PartRemoved
	partCall      = changes.PartCall
	partCallCount = changes.PartCallCount
	partActivity  = changes.PartActivity
)

// sharedChanged is the shared plans' listener.
func (p *Pages) sharedChanged(name string) {
	p.live.Announce(live.Change{Kind: changeShared, ID: name})
}

// gateChanged is the gate's listener.
func (p *Pages) gateChanged(c approval.Change) {
	switch {
	case c.Rule != nil:
		p.live.Announce(live.Change{Kind: changeRules})
	case c.Request != nil:
		cs := []live.Change{{Kind: changeApproval, ID: c.Request.ID}}
		if id := c.Request.SessionID; id != "" {
			cs = append(cs, live.Change{Kind: changeSession, ID: id}) // its page says it waits
		}
		p.live.Announce(cs...)
	}
}

// permissionsChanged is the relayed permissions' listener: the inbox, the count, and the pages of
// the sessions that wait (or no longer wait) on one.
func (p *Pages) permissionsChanged(string) {
	cs := []live.Change{{Kind: changePermissions}}
	seen := map[string]bool{}
	for _, perm := range p.perms.List() {
		if perm.SessionID != "" && !seen[perm.SessionID] {
			seen[perm.SessionID] = true
			cs = append(cs, live.Change{Kind: changeSession, ID: perm.SessionID})
		}
	}
	p.live.Announce(cs...)
}

// waitsChanged is the list's listener: the count, the strip, the inbox, and the session that
// waits (or no longer waits).
func (p *Pages) waitsChanged(c waits.Change) {
	id := c.ID
	if c.Began != "" {
		id = beganPrefix + id
	}
	p.live.Announce(live.Change{Kind: changeWaits, ID: id})
}

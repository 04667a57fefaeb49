package views

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// recentDecisions is how many decisions the inbox lists under the pending requests.
const recentDecisions = 50

// Inbox is the approvals inbox: what waits, the pending and recent requests, the relayed
// permission requests and the rules.
func (p *Pages) Inbox(ctx context.Context) (templates.ApprovalsPage, error) {
	// The seq is read first: anything that changes while the lists are read is sent again on
	// the socket, never missed.
	v := templates.ApprovalsPage{Seq: p.live.Seq(), Now: p.gate.Now(), Acp: p.acpPermissionViews()}
	l, err := p.waits.List(ctx)
	if err != nil {
		return v, err
	}
	v.Waits = l.Waits
	if v.Pending, err = p.gate.PendingSummaries(ctx); err != nil {
		return v, err
	}
	if v.Decided, err = p.gate.Decided(ctx, recentDecisions); err != nil {
		return v, err
	}
	// Requests the agents' own dialogs answered, outcome not known yet, head the decisions:
	// nobody decides them here, and the socket replaces each row with its outcome.
	handed, err := p.gate.Elsewhere(ctx)
	if err != nil {
		return v, err
	}
	slices.Reverse(handed)
	v.Decided = append(handed, v.Decided...)
	v.Choices = p.ruleChoices(ctx, v.Pending, v.Decided)
	v.Rules, err = p.gate.Rules(ctx, false)
	return v, err
}

// Approval is a request's page: the request, the one it revises, and its neighbours in the
// inbox's order. The page's form fields (its idempotency key, the proof the plan was shown) are
// the caller's.
func (p *Pages) Approval(ctx context.Context, id string) (templates.ApprovalPage, error) {
	v := templates.ApprovalPage{Seq: p.live.Seq(), Now: p.gate.Now()}
	var err error
	if v.Request, err = p.gate.Get(ctx, id); err != nil {
		return v, err
	}
	if v.Previous, err = p.previousRevision(ctx, v.Request); err != nil {
		return v, err
	}
	if v.Request.SessionID != "" {
		switch _, err := p.plans.SessionOnly(ctx, v.Request.SessionID); {
		case err == nil:
			v.SessionKnown = true
		case errs.KindOf(err) != errs.NotFound:
			return v, err
		}
	}
	pending, err := p.gate.PendingSummaries(ctx)
	if err != nil {
		return v, err
	}
	// j and k walk the inbox's order; from a decided request, j goes to the oldest waiting one.
	i := -1
	for k, q := range pending {
		if q.ID == id {
			i = k
		}
	}
	if i > 0 {
		v.Prev = pending[i-1].ID
	}
	switch {
	case i >= 0 && i+1 < len(pending):
		v.Next = pending[i+1].ID
	case i < 0 && len(pending) > 0:
		v.Next = pending[0].ID
	}
	return v, nil
}

// previousRevision is the request whose review r answers, when it names one the gate still has.
func (p *Pages) previousRevision(ctx context.Context, r approval.Request) (*approval.Request, error) {
	if r.Revises == "" {
		return nil, nil
	}
	prev, err := p.gate.Get(ctx, r.Revises)
	if errs.KindOf(err) == errs.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &prev, nil
}

// acpPermissionViews turns the relayed requests into what the inbox draws.
func (p *Pages) acpPermissionViews() []templates.AcpPermission {
	perms := p.perms.List()
	out := make([]templates.AcpPermission, 0, len(perms))
	for _, perm := range perms {
		v := templates.AcpPermission{Stream: perm.Stream, ID: string(perm.ID), SessionID: perm.SessionID, Offered: perm.Offered,
			Answered: perm.Answered, ResolvedBy: perm.ResolvedBy, Resolved: perm.Resolved, Title: "Permission requested"}
		if perm.Outcome != nil {
			v.Outcome = perm.Outcome.Outcome
			if perm.Outcome.OptionID != "" {
				v.Outcome = perm.Outcome.OptionID
			}
		}
		if req, err := acp.DecodeRequestPermissionParams(perm.Params); err == nil {
			for _, o := range req.Options {
				v.Options = append(v.Options, templates.PermissionOption{ID: o.OptionID, Name: o.Name, Kind: o.Kind})
			}
			tc := req.ToolCall
			if tc.Title != nil && *tc.Title != "" {
				v.Title = *tc.Title
			}
			if tc.Kind != nil {
				v.Kind = *tc.Kind
			}
			v.Plan = exitPlanText(tc.RawInput)
			var detail []string
			for _, raw := range []json.RawMessage{tc.RawInput, tc.Content} {
				if len(raw) > 0 && acp.Valid(raw) {
					detail = append(detail, plans.FormatJSON(raw).Display())
				}
			}
			v.Detail = strings.Join(detail, "\n")
		}
		out = append(out, v)
	}
	return out
}

// exitPlanText is the plan a plan-mode agent asks to leave plan mode with (rawInput.plan).
func exitPlanText(raw json.RawMessage) string {
	var in struct {
		Plan string `json:"plan"`
	}
	if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	return in.Plan
}

// inboxWaitsFragments is the inbox's section of the one list.
func (p *Pages) inboxWaitsFragments(ctx context.Context) ([]live.Fragment, error) {
	l, err := p.waits.List(ctx)
	if err != nil {
		return nil, err
	}
	return []live.Fragment{{ID: templates.InboxWaitsID, View: templates.InboxWaits(l.Waits, p.plans.Now())}}, nil
}

// renderInbox redoes the inbox's part a change touches: the rules, the relayed permission
// requests, the list of waits, or one request's row (moved to the decisions once decided).
func (p *Pages) renderInbox(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	now := p.gate.Now()
	switch c.Kind {
	case changeRules:
		rules, err := p.gate.Rules(ctx, false)
		if err != nil {
			return nil, err
		}
		return []live.Fragment{{ID: templates.ApprovalRulesID, View: templates.ApprovalRules(rules, now)}}, nil
	case changePermissions:
		return []live.Fragment{{ID: templates.AcpPermissionsID, View: templates.AcpPermissions(p.acpPermissionViews(), now)}}, nil
	case changeWaits:
		return p.inboxWaitsFragments(ctx)
	}
	r, err := p.gate.Get(ctx, c.ID)
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

// renderApprovalPanel is a request's page, live: its panel as the request stands now.
func (p *Pages) renderApprovalPanel(ctx context.Context, id string, _ live.Change) ([]live.Fragment, error) {
	r, err := p.gate.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return []live.Fragment{panelFragment(r, p.gate.Now())}, nil
}

func panelFragment(r approval.Request, now time.Time) live.Fragment {
	return live.Fragment{ID: templates.ApprovalPanelID(r.ID), View: templates.ApprovalPanel(templates.ApprovalPage{Request: r, Now: now})}
}

// auditShown is how many of the gate's audit events the audit page lists.
const auditShown = 500

// Audit is the gate's audit log, narrowed to a session or an agent when one is named.
func (p *Pages) Audit(ctx context.Context, sessionID, agent string) (templates.AuditPage, error) {
	v := templates.AuditPage{SessionID: sessionID, Agent: agent, Now: p.gate.Now(), Seq: p.live.Seq()}
	var err error
	v.Events, err = p.gate.Audit(ctx, approval.AuditFilter{SessionID: sessionID, Agent: agent, Limit: auditShown})
	return v, err
}

package web

import (
	"context"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/web/templates"
)

// The gate's topics. Every socket also listens to topicGate, which carries only the pending
// count for the navigation; its fragments have no Seq, because pages on other topics use Seq
// for their own catch-up. Pages fetch the count when their socket goes live
// (GET /api/v1/approvals/count), so the socket protocol of other pages is unchanged.
const (
	topicApprovals = "approvals" // the inbox (and the audit page, for the count)
	topicGate      = "gate"
)

// approvalTopic is one request's page.
func approvalTopic(id string) string { return "approval:" + id }

func isGateTopic(topic string) bool {
	id, ok := strings.CutPrefix(topic, "approval:")
	return topic == topicApprovals || ok && id != ""
}

// announceApproval publishes what one change of the gate changed on the pages. It runs in the
// gate's writer lock, so fragments are published in the order the changes were made.
func (s *Server) announceApproval(c approval.Change) {
	now := s.gate.Now()
	latest := ""
	if r := c.Request; r != nil && !r.Decided() {
		latest = r.Title
	}
	s.hub.Publish(topicGate, encode(templates.PendingCountID, "", 0, templates.PendingCount(c.Pending+s.perms.OpenCount(), latest, c.Seq)))
	if c.Rule != nil {
		if s.hub.Subscribers(topicApprovals) > 0 {
			if f, err := s.rulesFragment(context.Background(), c.Seq); err == nil {
				s.hub.Publish(topicApprovals, f)
			} else {
				s.log.Error("announce rules", "err", err)
			}
		}
		return
	}
	r := c.Request
	if r == nil {
		return
	}
	if !r.Decided() {
		s.hub.Publish(topicApprovals, encode(templates.ApprovalRowID(r.ID), templates.ApprovalsPendingID, r.Seq, templates.ApprovalRow(r.Summary(), now)))
		return
	}
	s.hub.Publish(topicApprovals,
		encode(templates.ApprovalRowID(r.ID), "", r.Seq, nil),
		encode(templates.DecidedRowID(r.ID), templates.ApprovalsDecidedID, r.Seq, templates.DecidedRow(*r, now)))
	if t := approvalTopic(r.ID); s.hub.Subscribers(t) > 0 {
		s.hub.Publish(t, panelFragment(*r, now))
	}
}

func panelFragment(r approval.Request, now time.Time) hub.Fragment {
	return encode(templates.ApprovalPanelID(r.ID), "", r.Seq, templates.ApprovalPanel(templates.ApprovalPage{Request: r, Now: now}))
}

func (s *Server) rulesFragment(ctx context.Context, seq uint64) (hub.Fragment, error) {
	rules, err := s.gate.Rules(ctx, false)
	if err != nil {
		return hub.Fragment{}, err
	}
	return encode(templates.ApprovalRulesID, "", seq, templates.ApprovalRules(rules, s.gate.Now())), nil
}

// gateCatchUp sends a reconnecting gate page what changed after since: the inbox's lists whole
// (they are cheap next to a reload), or a request's decision panel if it changed. A panel that
// did not change is not sent, so a person's half-made edit survives a reconnect.
func (s *Server) gateCatchUp(ctx context.Context, c *websocket.Conn, topic string, since uint64) error {
	seq := s.gate.Seq()
	if since == seq {
		return nil
	}
	now := s.gate.Now()
	if id, ok := strings.CutPrefix(topic, "approval:"); ok {
		r, err := s.gate.Get(ctx, id)
		if err != nil || r.Seq <= since {
			return nil
		}
		return write(ctx, c, panelFragment(r, now).Data)
	}
	p, err := s.inboxData(ctx)
	if err != nil {
		return err
	}
	frags := []hub.Fragment{
		encode(templates.ApprovalsPendingID, "", p.Seq, templates.PendingList(p.Pending, now)),
		encode(templates.ApprovalsDecidedID, "", p.Seq, templates.DecidedList(p.Decided, now)),
	}
	all, err := s.gate.Rules(ctx, true)
	if err != nil {
		return err
	}
	for _, rule := range all {
		if rule.Seq > since {
			frags = append(frags, encode(templates.ApprovalRulesID, "", p.Seq, templates.ApprovalRules(p.Rules, now)))
			break
		}
	}
	for _, f := range frags {
		if err := write(ctx, c, f.Data); err != nil {
			return err
		}
	}
	return nil
}

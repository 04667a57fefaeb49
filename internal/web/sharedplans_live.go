package web

import (
	"context"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/web/templates"
)

// Socket topics of the shared-plan pages: the list, and one plan's page. Their fragments carry
// the history's Seq, so a reconnecting page catches up from the history.
const sharedTopic = "shared"

func sharedPlanTopic(name string) string { return "shared:" + name }

func isSharedTopic(topic string) bool {
	name, ok := strings.CutPrefix(topic, "shared:")
	return topic == sharedTopic || ok && name != ""
}

// sharedHistoryLimit is how many of a plan's newest states its page lists.
const sharedHistoryLimit = 50

// publishShared sends a newly recorded state to the list and to the plan's page.
func (s *Server) publishShared(ctx context.Context, e sharedplans.HistoryEntry) {
	now := time.Now()
	p := sharedFromEntry(e)
	seq := uint64(e.Seq)
	id := templates.SharedCardID(e.Name)
	if e.Removed {
		s.hub.Publish(sharedTopic, encode(id, "", seq, nil))
	} else {
		s.hub.Publish(sharedTopic, encode(id, templates.SharedListID, seq, templates.SharedCard(p, now)))
	}
	s.publishSharedRow(p, e.Removed)
	if topic := sharedPlanTopic(e.Name); s.hub.Subscribers(topic) > 0 {
		s.hub.Publish(topic, s.sharedPlanFragments(ctx, p, seq, now)...)
	}
}

// publishSharedBad shows that a plan's file exists but cannot be read. It has no history entry,
// so no Seq: pages apply it whatever they have.
func (s *Server) publishSharedBad(name string, err error) {
	p := templates.SharedPlan{Name: name, Err: err.Error()}
	s.hub.Publish(sharedTopic, encode(templates.SharedCardID(name), templates.SharedListID, 0, templates.SharedCard(p, time.Now())))
	if topic := sharedPlanTopic(name); s.hub.Subscribers(topic) > 0 {
		s.hub.Publish(topic, encode(templates.SharedBodyID(name), "", 0, templates.SharedPlanBody(p)))
	}
}

// sharedPlanFragments renders every live part of a plan's page.
func (s *Server) sharedPlanFragments(ctx context.Context, p templates.SharedPlan, seq uint64, now time.Time) []hub.Fragment {
	hist, err := s.sharedHist.History(ctx, p.Name, sharedHistoryLimit)
	if err != nil {
		s.log.Error("shared plans: reading history", "plan", p.Name, "err", err)
	}
	return []hub.Fragment{
		encode(templates.SharedHeadID(p.Name), "", seq, templates.SharedPlanHead(p, now)),
		encode(templates.SharedBodyID(p.Name), "", seq, templates.SharedPlanBody(p)),
		encode(templates.SharedHistoryID(p.Name), "", seq, templates.SharedHistory(p.Name, revisionViews(hist), now)),
	}
}

// sharedCatchUp sends a reconnecting shared-plan page what was recorded after since.
func (s *Server) sharedCatchUp(ctx context.Context, c *websocket.Conn, topic string, since uint64) error {
	changed, err := s.sharedHist.ChangedSince(ctx, int64(since))
	if err != nil {
		return err
	}
	if len(changed) > maxCatchUp && topic == sharedTopic {
		return write(ctx, c, []byte(`{"t":"resync"}`))
	}
	now := time.Now()
	for _, e := range changed {
		var frags []hub.Fragment
		switch {
		case topic == sharedTopic && e.Removed:
			frags = []hub.Fragment{encode(templates.SharedCardID(e.Name), "", uint64(e.Seq), nil)}
		case topic == sharedTopic:
			frags = []hub.Fragment{encode(templates.SharedCardID(e.Name), templates.SharedListID, uint64(e.Seq), templates.SharedCard(sharedFromEntry(e), now))}
		case topic == sharedPlanTopic(e.Name):
			frags = s.sharedPlanFragments(ctx, sharedFromEntry(e), uint64(e.Seq), now)
		}
		for _, f := range frags {
			if err := write(ctx, c, f.Data); err != nil {
				return err
			}
		}
	}
	return nil
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

package views

import (
	"cmp"
	"context"
	"strings"

	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/web/templates"
)

// waitingBySession lists what waits for a person, by session, oldest first: the one list,
// without what was answered in the terminal (its outcome not known yet, it waits on nobody).
func (p *Pages) waitingBySession(ctx context.Context) map[string][]templates.Waiting {
	out := map[string][]templates.Waiting{}
	for _, w := range p.waitList(ctx).Waits {
		if w.SessionID != "" && w.Answered == "" {
			out[w.SessionID] = append(out[w.SessionID], waitingView(w))
		}
	}
	return out
}

// waitList is the one list of waits; a failure to read it is logged and shows an empty list.
func (p *Pages) waitList(ctx context.Context) waits.List {
	l, err := p.waits.List(ctx)
	if err != nil {
		p.log.Error("listing waits", "err", err)
	}
	return l
}

// waitingView is a wait as the strip and a session's head show it.
func waitingView(w waits.Wait) templates.Waiting {
	who := w.AgentName
	if w.Cwd != "" {
		who = cmp.Or(who, "an agent") + " · " + w.Cwd
	}
	return templates.Waiting{Title: w.Title, Href: w.URL, Since: w.Since, Who: who, Kind: string(w.Kind), Answered: w.Answered}
}

// renderWaitPanel is a kept wait's page, live: its form or its outcome.
func (p *Pages) renderWaitPanel(ctx context.Context, id string, _ live.Change) ([]live.Fragment, error) {
	rec, err := p.waits.Kept(ctx, id)
	if err != nil {
		return nil, err
	}
	return []live.Fragment{{ID: templates.WaitPanelID(id), View: templates.WaitPanel(templates.WaitView{Record: rec, Now: p.now()})}}, nil
}

// Wait is a kept wait's page: an agent's question with its form, or how it ended.
func (p *Pages) Wait(ctx context.Context, id string) (templates.WaitView, error) {
	seq := p.live.Seq() // before the read: a change after it reaches the page live
	rec, err := p.waits.Kept(ctx, id)
	if err != nil {
		return templates.WaitView{}, err
	}
	return templates.WaitView{Record: rec, Now: p.now(), Seq: seq}, nil
}

// renderPendingCount is the navigation's count of what waits for a person (the one list), with
// the title of the wait that just began for the notification.
func (p *Pages) renderPendingCount(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	l, err := p.waits.List(ctx)
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

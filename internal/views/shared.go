package views

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/web/templates"
)

// sharedHistoryLimit is how many of a plan's newest states its page lists.
const sharedHistoryLimit = 50

// sharedPlanFragments renders every live part of a plan's page.
func (p *Pages) sharedPlanFragments(ctx context.Context, sp templates.SharedPlan, now time.Time) ([]live.Fragment, error) {
	hist, err := p.shared.History().History(ctx, sp.Name, sharedHistoryLimit)
	if err != nil {
		return nil, err
	}
	return []live.Fragment{
		{ID: templates.SharedHeadID(sp.Name), View: templates.SharedPlanHead(sp, now)},
		{ID: templates.SharedBodyID(sp.Name), View: templates.SharedPlanBody(sp)},
		{ID: templates.SharedHistoryID(sp.Name), View: templates.SharedHistory(sp.Name, revisionViews(hist), now)},
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

// ErrSharedUnknown is a plan that is neither on disk nor in the history.
var ErrSharedUnknown = errs.New(errs.NotFound, "there is no shared plan by that name, and plandash has never seen one")

// SharedPlan is a shared plan's page: the plan (or why its file cannot be read), its editor,
// its history and the changes between two recorded states, by default the newest two (q's
// ?from=&to= name others by sequence number). ErrSharedUnknown: neither on disk nor in the
// history.
func (p *Pages) SharedPlan(ctx context.Context, name string, q url.Values) (templates.SharedPlanPage, error) {
	if err := sharedplans.ValidateName(name); err != nil {
		return templates.SharedPlanPage{}, err
	}
	v := templates.SharedPlanPage{Seq: int64(p.live.Seq()), Now: p.now()}
	pl, ok, err := p.shared.Store().Get(ctx, name)
	switch {
	case err != nil && !errors.Is(err, sharedplans.ErrCorrupt):
		return v, err
	case err != nil:
		v.Plan, v.Exists = templates.SharedPlan{Name: name, Err: err.Error()}, true
	case ok:
		v.Plan, v.Exists = sharedFromPlan(pl), true
		v.Editor = templates.SharedEditor{Name: name, Title: pl.Title, Author: pl.Author, Status: pl.Status,
			Content: pl.Content, Revision: pl.Revision}
	default:
		v.Plan = templates.SharedPlan{Name: name, Removed: true}
	}
	hist, err := p.shared.History().History(ctx, name, sharedHistoryLimit)
	if err != nil {
		return v, err
	}
	if !v.Exists && len(hist) == 0 {
		return v, ErrSharedUnknown
	}
	v.History = revisionViews(hist)
	if len(hist) >= 2 {
		from, to := hist[1].Seq, hist[0].Seq
		for _, f := range []struct {
			key string
			dst *int64
		}{{"from", &from}, {"to", &to}} {
			if n, err := strconv.ParseInt(q.Get(f.key), 10, 64); err == nil {
				*f.dst = n
			}
		}
		a, okA, errA := p.shared.History().Entry(ctx, name, from)
		b, okB, errB := p.shared.History().Entry(ctx, name, to)
		if err := errors.Join(errA, errB); err != nil {
			return v, err
		}
		if okA && okB {
			ra, rb := revisionView(a), revisionView(b)
			v.From, v.To = &ra, &rb
			v.Diff = sharedDiff(a, b)
		}
	}
	return v, nil
}

// SharedList is one page of the shared plans by name, from the watcher's index, each read from
// disk for its excerpt: the page at u (?cursor=&limit=).
func (p *Pages) SharedList(ctx context.Context, u *url.URL) (templates.SharedList, error) {
	q := u.Query()
	pr, err := paging.ParseRequest(q.Get("cursor"), q.Get("limit"))
	if err != nil {
		return templates.SharedList{}, err
	}
	// The Seq is read before the directory, so anything recorded after it is caught up by the
	// socket even if the listing already shows it.
	seq := int64(p.live.Seq())
	lp, err := p.shared.ListPage(ctx, pr.After.ID, pr.Limit)
	if err != nil {
		return templates.SharedList{}, err
	}
	v := templates.SharedList{Warnings: lp.Warnings, Dir: p.shared.Store().Dir(), Seq: seq, Now: p.now(),
		Total: lp.Total, Plans: make([]templates.SharedPlan, 0, len(lp.Plans)), After: pr.After.ID, Until: lp.Next}
	if lp.Next != "" {
		v.Next = paging.NextURL(u, paging.Cursor{ID: lp.Next}) // by name, as the API's list
	}
	if !pr.After.IsZero() {
		q.Del("cursor")
		v.First = "?" + q.Encode()
	}
	for _, sum := range lp.Plans {
		pl, ok, err := p.shared.Store().Get(ctx, sum.Name)
		switch {
		case err != nil:
			v.Plans = append(v.Plans, templates.SharedPlan{Name: sum.Name, Title: sum.Title, Revision: sum.Revision, Err: err.Error()})
		case ok:
			v.Plans = append(v.Plans, sharedFromPlan(pl))
		}
	}
	return v, nil
}

// SharedConflict is what the editor shows when draft was refused because someone saved first:
// the plan as it is now, the draft, and their differences; current is the plan's revision now
// (saving again is a deliberate overwrite of what was shown).
func (p *Pages) SharedConflict(ctx context.Context, draft templates.SharedEditor) (c *templates.SharedConflict, current int) {
	cur, ok, _ := p.shared.Store().Get(ctx, draft.Name)
	c = &templates.SharedConflict{Opened: draft.Revision, Current: sharedFromPlan(cur),
		Draft: templates.SharedPlan{Name: draft.Name, Title: draft.Title, Author: draft.Author, Status: draft.Status, Content: draft.Content}}
	curEntry := sharedplans.HistoryEntry{Title: cur.Title, Author: cur.Author, Status: cur.Status, Content: cur.Content, Removed: !ok}
	c.Current.Removed = !ok
	c.Diff = sharedDiff(curEntry, sharedplans.HistoryEntry{Title: draft.Title, Author: draft.Author, Status: draft.Status, Content: draft.Content})
	return c, cur.Revision
}

// sharedDiff compares two recorded states of a shared plan: its title, author and status, then
// its text block by block. A deleted state has no text, so re-creating a plan shows all of it
// added.
func sharedDiff(a, b sharedplans.HistoryEntry) plans.StructuredDiff {
	content := func(e sharedplans.HistoryEntry) string {
		if e.Removed {
			return ""
		}
		return e.Content
	}
	d := plans.MarkdownDiff(content(a), content(b))
	var fields []plans.FieldChange
	if a.Removed != b.Removed {
		state := map[bool]string{false: "present", true: "deleted"}
		fields = append(fields, plans.FieldChange{Name: "plan", From: state[a.Removed], To: state[b.Removed]})
	} else if !a.Removed {
		for _, f := range []struct{ name, from, to string }{
			{"title", a.Title, b.Title}, {"author", a.Author, b.Author}, {"status", a.Status, b.Status},
		} {
			if f.from != f.to {
				fields = append(fields, plans.NewFieldChange(f.name, f.from, f.to))
			}
		}
	}
	d.Fields = append(fields, d.Fields...)
	return d
}

// renderSharedCard is a shared plan's card on the list: as last recorded, or why its file cannot
// be read, or its removal.
func (p *Pages) renderSharedCard(ctx context.Context, _ string, c live.Change) ([]live.Fragment, error) {
	id := templates.SharedCardID(c.ID)
	if why, bad := p.shared.Bad(c.ID); bad {
		return []live.Fragment{{ID: id, Parent: templates.SharedListID, View: templates.SharedCard(templates.SharedPlan{Name: c.ID, Err: why}, p.now())}}, nil
	}
	e, ok, err := p.shared.History().Latest(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if !ok || e.Removed {
		return []live.Fragment{live.Remove(id)}, nil
	}
	return []live.Fragment{{ID: id, Parent: templates.SharedListID, View: templates.SharedCard(sharedFromEntry(e), p.now())}}, nil
}

// renderSharedPlan is every live part of a shared plan's page.
func (p *Pages) renderSharedPlan(ctx context.Context, name string, _ live.Change) ([]live.Fragment, error) {
	if why, bad := p.shared.Bad(name); bad {
		return []live.Fragment{{ID: templates.SharedBodyID(name), View: templates.SharedPlanBody(templates.SharedPlan{Name: name, Err: why})}}, nil
	}
	e, ok, err := p.shared.History().Latest(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.Errorf(errs.NotFound, "no history of shared plan %q", name)
	}
	return p.sharedPlanFragments(ctx, sharedFromEntry(e), p.now())
}

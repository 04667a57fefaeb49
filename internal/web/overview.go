package web

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// Bounds of the overview: one page of sessions, however many are stored, and what one page may
// list of what waits for a person (the inbox has the rest).
const (
	overviewPageSize = 50
	needsYouMax      = 20
	// facetSessions is how many recent sessions the filter menus draw their choices from.
	facetSessions = 200
	maxFilterText = 200 // runes of a search or filter value
)

// overview serves GET /: a page of sessions, filtered by its query.
func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	f, err := parseOverviewFilter(r.URL.Query())
	cookie := ""
	if c, err := r.Cookie(templates.DensityCookie); err == nil {
		cookie = c.Value
	}
	f.Compact = templates.CompactDensity(r.URL.Query().Get("density"), cookie)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	o, err := s.overviewData(r.Context(), f)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	o.Ingest = "http://" + r.Host + "/api/v1/ingest"
	o.Shared, o.SharedTotal = s.sharedStrip(r)
	s.page(w, r, templates.OverviewPage(o))
}

// parseOverviewFilter reads the overview's query; a value out of bounds is refused rather than
// cut, so a shared link never silently shows something else.
func parseOverviewFilter(q url.Values) (templates.OverviewFilter, error) {
	f := templates.OverviewFilter{Agent: q.Get("agent"), Host: q.Get("host"), Dir: q.Get("dir"), State: q.Get("state"),
		Q: strings.TrimSpace(q.Get("q")), Compact: q.Get("density") == "compact", Before: q.Get("before")}
	for name, v := range map[string]string{"agent": f.Agent, "host": f.Host, "dir": f.Dir, "q": f.Q} {
		if utf8.RuneCountInString(v) > maxFilterText || !utf8.ValidString(v) {
			return f, errs.Errorf(errs.Invalid, "the %s filter is longer than %d characters", name, maxFilterText)
		}
	}
	// An agent is chosen by canonical id: ?agent=Claude+Code and ?agent=claude-agent-acp are
	// the menu's claude-code, and the store matches every spelling of it.
	f.Agent = agentid.Of(f.Agent).ID
	if f.State != "" && !slices.Contains(templates.OverviewStates, f.State) {
		return f, errs.Errorf(errs.Invalid, "state must be one of %s", strings.Join(templates.OverviewStates, ", "))
	}
	if _, err := plans.ParseSessionCursor(f.Before); err != nil {
		return f, err
	}
	return f, nil
}

// sessionFilter is the store's filter for the overview's; waiting lists the sessions that wait
// for a person.
func sessionFilter(f templates.OverviewFilter, waiting map[string][]templates.Waiting) plans.SessionFilter {
	sf := plans.SessionFilter{Agent: f.Agent, Host: f.Host, Dir: f.Dir, Text: f.Q, PlansPer: templates.MaxGroupPlans}
	switch f.State {
	case templates.StateWaiting:
		sf.IDs = make([]string, 0, len(waiting))
		for id := range waiting {
			sf.IDs = append(sf.IDs, id)
		}
	case templates.StateActive:
		sf.State = plans.StateActive
	case templates.StateDone:
		sf.State = plans.StateDone
	case templates.StateGone:
		sf.State = plans.StateGone
	}
	return sf
}

// needsYou is what waits for a person across sessions, oldest first, at most needsYouMax: the
// one list of waits; total is the list's length.
func (s *Server) needsYou(ctx context.Context) (needs []templates.Waiting, total int) {
	l := s.waitList(ctx)
	out := make([]templates.Waiting, 0, min(len(l.Waits), needsYouMax))
	for _, w := range l.Waits[:min(len(l.Waits), needsYouMax)] {
		out = append(out, waitingView(w))
	}
	return out, l.Waiting()
}

// filterOptions are the filter menus' choices: what the most recent sessions have, and the
// current choices; and, from the same sessions, when each agent was last heard from.
//
// The store lists sessions most recently seen first, so an agent's first session in the list
// is the newest it has: one query serves both. An agent none of the facetSessions most recent
// sessions came from is left out of "Heard from", which then names only agents heard from more
// recently anyway unless fewer than MaxHeardFrom agents share those sessions.
func (s *Server) filterOptions(ctx context.Context, f templates.OverviewFilter) (templates.FilterOptions, []templates.HeardFrom) {
	recent, err := s.plans.Sessions(ctx, facetSessions)
	if err != nil {
		s.log.Warn("overview: listing recent sessions for the filters", "err", err)
	}
	agents := map[string]string{} // canonical id → display name: the filter matches by id
	hosts, dirs := map[string]bool{}, map[string]bool{}
	var heard []templates.HeardFrom
	heardOf := map[string]bool{} // canonical agent ids already in "Heard from"
	for _, sess := range recent {
		if a := cmp.Or(sess.Agent, sess.AgentTitle); a != "" {
			// One line per agent, however its sessions spelled it (claude-agent-acp and Claude
			// Code's hooks are one agent), under its display name when plandash knows it.
			if id := agentid.Of(a); !heardOf[id.ID] && len(heard) < templates.MaxHeardFrom {
				heardOf[id.ID] = true
				name := id.Name
				if name == strings.TrimSpace(a) { // not a known agent: the session's own title reads better
					name = sess.Name()
				}
				heard = append(heard, templates.HeardFrom{Key: id.ID, Name: name, At: sess.LastSeen})
			}
			if id := agentid.Of(a); agents[id.ID] == "" {
				agents[id.ID] = id.Name
			}
		}
		hosts[cmp.Or(sess.Host, plans.LocalHost)] = true
		if sess.Cwd != "" {
			dirs[sess.Cwd] = true
		}
	}
	// The current choices stay on offer.
	if id := agentid.Of(f.Agent); id.ID != "" && agents[id.ID] == "" {
		agents[id.ID] = id.Name
	}
	hosts[f.Host], dirs[f.Dir] = true, true
	delete(hosts, "")
	delete(dirs, "")
	keys := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	opts := templates.FilterOptions{Hosts: keys(hosts), Dirs: keys(dirs)}
	for id, name := range agents {
		opts.Agents = append(opts.Agents, templates.Choice{Value: id, Label: name})
	}
	slices.SortFunc(opts.Agents, func(a, b templates.Choice) int { return cmp.Compare(a.Value, b.Value) })
	return opts, heard
}

// overviewData is one page of the overview.
func (s *Server) overviewData(ctx context.Context, f templates.OverviewFilter) (templates.Overview, error) {
	seq := s.live.Seq() // before the store is read: anything newer reaches the page live
	after, err := plans.ParseSessionCursor(f.Before)
	if err != nil {
		return templates.Overview{}, err
	}
	waiting := s.waitingBySession(ctx)
	groups, more, err := s.plans.ListSessions(ctx, sessionFilter(f, waiting), after, overviewPageSize)
	if err != nil {
		return templates.Overview{}, err
	}
	now := s.plans.Now()
	o := templates.Overview{Seq: seq, Now: now, Filter: f, Groups: make([]templates.Group, len(groups))}
	o.Options, o.Heard = s.filterOptions(ctx, f)
	o.Needs, o.NeedsTotal = s.needsYou(ctx)
	for i, g := range groups {
		o.Groups[i] = templates.NewGroup(g.Session, s.render.views(ctx, g.Plans, nil, true), g.Tally, waiting[g.Session.ID], now, s.plans.Idle())
	}
	if more && len(groups) > 0 {
		o.Older = plans.CursorOf(groups[len(groups)-1].Session).String()
	}
	return o, nil
}

// sharedStrip is the overview's view of the shared plans: the most recently updated, and how many
// there are.
func (s *Server) sharedStrip(r *http.Request) ([]templates.SharedPlan, int) {
	sums, total, err := s.shared.Strip(r.Context(), sharedStripSize)
	if err != nil {
		s.log.Warn("overview: listing shared plans", "err", err)
		return nil, 0
	}
	out := make([]templates.SharedPlan, len(sums))
	for i, p := range sums {
		out[i] = templates.SharedPlan{Name: p.Name, Title: p.Title, Author: p.Author, Status: p.Status, Revision: p.Revision, UpdatedAt: p.UpdatedAt}
	}
	return out, total
}

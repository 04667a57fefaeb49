package templates

import (
	"github.com/a-h/templ"
	"net/url"
	"strconv"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// Group states on the overview: what a session's agent is doing, as a person sorts them.
const (
	StateActive  = "active"  // working
	StateWaiting = "waiting" // something of it waits for a person
	StateDone    = "done"    // every checklist entry finished
	StateGone    = "gone"    // ended, disconnected or silent past the idle time
)

// OverviewStates are the states the overview filters by, in the order its menu lists them.
var OverviewStates = []string{StateActive, StateWaiting, StateDone, StateGone}

// OverviewFilter is what the overview shows, as its URL query says: it survives a reload and
// can be shared, and works as a plain GET form.
type OverviewFilter struct {
	Agent, Host, Dir, State string
	Q                       string // search: titles, plan text, directories
	Compact                 bool   // the dense layout
	Before                  string // the page cursor: sessions older than it
}

// Narrowed says some filter or search is set, so an empty page means "nothing matches".
func (f OverviewFilter) Narrowed() bool {
	return f.Agent != "" || f.Host != "" || f.Dir != "" || f.State != "" || f.Q != ""
}

// Chosen counts the menus set to something other than "any": what a folded filter bar says it
// holds.
func (f OverviewFilter) Chosen() int {
	n := 0
	for _, v := range []string{f.Agent, f.Host, f.Dir, f.State} {
		if v != "" {
			n++
		}
	}
	return n
}

// Query is the filter as a URL query, without the cursor.
func (f OverviewFilter) Query() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"agent": f.Agent, "host": f.Host, "dir": f.Dir, "state": f.State, "q": f.Q} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Compact {
		v.Set("density", "compact")
	}
	return v
}

// DensityCookie remembers the density a person last chose, for the overview's address without
// one (the navigation's "Plans" link, say).
const DensityCookie = "plandash_density"

// CompactDensity reads a density: from the URL when it names one, else from the cookie.
func CompactDensity(query, cookie string) bool {
	if query == "compact" || query == "comfortable" {
		return query == "compact"
	}
	return cookie == "compact"
}

// FilterOptions are the choices the filter menus offer: what recent sessions have, and the
// current choice always.
type FilterOptions struct {
	Agents      []Choice // canonical agent ids (what the filter matches by) and display names
	Hosts, Dirs []string
}

// HeardFrom is one agent in the overview's "Heard from" line: its filter key (canonical id), its label and
// when plandash last heard from any of its sessions.
type HeardFrom struct {
	Key, Name string
	At        time.Time
}

// MaxHeardFrom bounds the "Heard from" line: the agents heard from most recently.
const MaxHeardFrom = 10

// groupState is the state the overview shows a session in, from the tally of all its plans.
func groupState(s plans.Session, t plans.Tally, waiting []Waiting, now time.Time, idle time.Duration) string {
	switch {
	case len(waiting) > 0:
		return StateWaiting
	case !s.Active(now, idle):
		return StateGone
	case t.Entries > 0 && t.Open == 0:
		return StateDone
	}
	return StateActive
}

// NewGroup is a session as the overview shows it: views of its newest plans (at most
// MaxGroupPlans are kept), the rest counted from the tally of all of them, and its state at now.
func NewGroup(s plans.Session, views []PlanView, t plans.Tally, waiting []Waiting, now time.Time, idle time.Duration) Group {
	views = views[:min(len(views), MaxGroupPlans)]
	g := GroupParts(s, len(views), t, waiting, now, idle)
	g.Plans = views
	return g
}

// GroupParts is a session's group without its cards, for drawing the parts around them (its
// head, waits and "more" link) when it shows shown cards of the plans t counts.
func GroupParts(s plans.Session, shown int, t plans.Tally, waiting []Waiting, now time.Time, idle time.Duration) Group {
	return Group{Session: s, Waiting: waiting, State: groupState(s, t, waiting, now, idle), MorePlans: max(t.Plans-shown, 0)}
}

// groupClass is the group's classes: its state, and whether it waits for a person.
func groupClass(g Group) string {
	c := "group group-" + g.State
	if len(g.Waiting) > 0 {
		c += " group-waiting"
	}
	return c
}

// MaxGroupPlans bounds what one session adds to the overview; its page shows them all.
const MaxGroupPlans = 6

// goneText says since when a gone session's agent is gone: "ended 5 min ago".
func goneText(g Group, now time.Time) string {
	if g.Session.Ended {
		return "ended " + ago(now, g.Session.LastSeen)
	}
	return "silent since " + ago(now, g.Session.LastSeen)
}

func stateLabel(state string) string {
	switch state {
	case StateWaiting:
		return "waiting for you"
	case StateDone:
		return "done"
	case StateGone:
		return "gone"
	}
	return "active"
}

// agentKey is the value the agent filter matches a session by.
func agentKey(s plans.Session) string {
	if s.Agent != "" {
		return s.Agent
	}
	return s.AgentTitle
}

func nsText(t time.Time) string { return strconv.FormatInt(plans.TimeNS(t), 10) }

// olderURL is the next page of the overview, with the same filter.
func olderURL(f OverviewFilter, cursor string) templ.SafeURL {
	q := f.Query()
	q.Set("before", cursor)
	return templ.SafeURL("/?" + q.Encode())
}

// newestURL is the first page of the overview with the same filter.
func newestURL(f OverviewFilter) templ.SafeURL {
	if q := f.Query().Encode(); q != "" {
		return templ.SafeURL("/?" + q)
	}
	return "/"
}

// hostLabel names a host filter's choice.
func hostLabel(h string) string {
	if h == plans.LocalHost {
		return "this machine"
	}
	return h
}

// top is the start of the newest session on the page, "" when it has none.
func (o Overview) top() string {
	if len(o.Groups) == 0 {
		return ""
	}
	return nsText(o.Groups[0].Session.FirstSeen)
}

// bottom is the start of the oldest session on the page when older pages follow, else "".
func (o Overview) bottom() string {
	if o.Older == "" || len(o.Groups) == 0 {
		return ""
	}
	return nsText(o.Groups[len(o.Groups)-1].Session.FirstSeen)
}

package planstest

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// testListSessions: ListSessions pages by cursor in an order sessions keep for life, and
// narrows by agent, host, directory, text, state and ids.
func testListSessions(t *testing.T, s plans.Store) {
	ctx := context.Background()
	now, idle := at(1000), 100*time.Second
	mk := func(id string, began, lastSeen int, agent, host, cwd, title string) *plans.Session {
		return &plans.Session{ID: id, Agent: agent, Host: host, Cwd: cwd, Title: title, FirstSeen: at(began), LastSeen: at(lastSeen)}
	}
	ended := mk("ended", 50, 990, "codex", "", "/home/a/api", "")
	ended.Ended = true
	items := func(sid string, statuses ...string) *plans.Plan {
		p := plan(sid, "p", 1, 10)
		p.Entries = nil
		for i, st := range statuses {
			p.Entries = append(p.Entries, plans.Entry{Content: "step " + string(rune('a'+i)) + " of " + sid, Priority: "medium", Status: st})
		}
		return p
	}
	md := plan("md", "m", 1, 10)
	md.Kind, md.Type, md.Entries, md.Markdown = plans.KindMarkdown, "markdown", nil, "# Move sessions to REDIS_100%"
	removed := plan("removed", "p", 1, 10)
	removed.Removed = true
	// A removed plan with open entries neither counts nor keeps "done" from being done.
	doneGone := items("done", plans.StatusPending)
	doneGone.ID, doneGone.Removed = "gone", true
	c := &plans.Changes{
		Sessions: []*plans.Session{
			mk("working", 10, 999, "claude", "", "/home/a/web", "Fix login"),
			mk("done", 20, 998, "claude", "box2", "/home/a/web/ui", ""),
			mk("md", 30, 997, "gemini", "box2", "/srv/web", "Plan"),
			mk("idle", 40, 100, "claude", "", "/home/a/web", ""),
			ended,
			mk("tie-a", 60, 996, "codex", "box3", "/tmp", ""),
			mk("tie-b", 60, 995, "codex", "box3", "/tmp", ""),
			mk("removed", 70, 999, "claude", "", "/home/a", ""),
			mk("noplan", 80, 999, "claude", "", "/home/a", ""),
		},
		Plans: []*plans.Plan{
			items("working", plans.StatusCompleted, plans.StatusInProgress), plan("working", "second", 1, 20),
			items("done", plans.StatusCompleted, plans.StatusCancelled), md,
			items("idle", plans.StatusPending), items("ended", plans.StatusPending),
			items("tie-a", plans.StatusPending), items("tie-b", plans.StatusCompleted), removed, doneGone,
		},
	}
	commit(t, s, c)
	list := func(f plans.SessionFilter, after plans.SessionCursor, limit int) ([]string, bool) {
		t.Helper()
		f.Now, f.Idle = now, idle
		got, more, err := s.ListSessions(ctx, f, after, limit)
		if err != nil {
			t.Fatalf("ListSessions(%+v): %v", f, err)
		}
		var ids []string
		for _, g := range got {
			ids = append(ids, g.Session.ID)
			for _, p := range g.Plans {
				if p.Removed || p.SessionID != g.Session.ID {
					t.Fatalf("session %s lists plan %+v", g.Session.ID, p)
				}
			}
		}
		return ids, more
	}
	all := []string{"tie-b", "tie-a", "ended", "idle", "md", "done", "working"}

	// Pages of two, following the cursor, cover the list once, in order.
	var paged []string
	var after plans.SessionCursor
	for range 10 {
		got, more, err := s.ListSessions(ctx, plans.SessionFilter{Now: now, Idle: idle}, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			paged = append(paged, g.Session.ID)
		}
		if !more {
			break
		}
		after = plans.CursorOf(got[len(got)-1].Session)
	}
	same(t, "pages of two", paged, all)

	// A session that changes keeps its place.
	w := *c.Sessions[0]
	w.LastSeen, w.Title = at(1000), "Fix login, again"
	commit(t, s, &plans.Changes{Sessions: []*plans.Session{&w}})
	if ids, _ := list(plans.SessionFilter{}, plans.SessionCursor{}, 10); strings.Join(ids, ",") != strings.Join(all, ",") {
		t.Fatalf("after a change the order is %v, want %v", ids, all)
	}
	got, _, err := s.ListSessions(ctx, plans.SessionFilter{Now: now, Idle: idle, IDs: []string{"working"}}, plans.SessionCursor{}, 10)
	if err != nil || len(got) != 1 {
		t.Fatalf("working: %v, %v", got, err)
	}
	same(t, "working's plans", []string{got[0].Plans[0].ID, got[0].Plans[1].ID}, []string{"second", "p"})
	same(t, "working's session", got[0].Session.Title, "Fix login, again")

	// PlansPer keeps the newest plans of each session whole; the tally counts them all.
	got, _, err = s.ListSessions(ctx, plans.SessionFilter{Now: now, Idle: idle, IDs: []string{"working", "done"}, PlansPer: 1}, plans.SessionCursor{}, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("working and done, one plan each: %v, %v", got, err)
	}
	for i, want := range []struct {
		id    string
		plans []string
		tally plans.Tally
	}{{"done", []string{"p"}, plans.Tally{Plans: 1, Entries: 2, Open: 0}}, {"working", []string{"second"}, plans.Tally{Plans: 2, Entries: 3, Open: 2}}} {
		same(t, "session", got[i].Session.ID, want.id)
		same(t, want.id+"'s plans", ids(got[i].Plans, func(p plans.Plan) string { return p.ID }), want.plans)
		same(t, want.id+"'s tally", got[i].Tally, want.tally)
	}
	got, _, err = s.ListSessions(ctx, plans.SessionFilter{Now: now, Idle: idle, IDs: []string{"working"}}, plans.SessionCursor{}, 10)
	if err != nil || len(got) != 1 || len(got[0].Plans) != 2 || got[0].Tally != TallyOf(got[0].Plans) {
		t.Fatalf("working, every plan: %+v, %v", got, err)
	}

	for _, tt := range []struct {
		name string
		f    plans.SessionFilter
		want []string
	}{
		{"agent", plans.SessionFilter{Agent: "codex"}, []string{"tie-b", "tie-a", "ended"}},
		// By canonical id (agentid), whichever spelling the filter and the session use.
		{"agent by its display name", plans.SessionFilter{Agent: "Claude Code"}, []string{"idle", "done", "working"}},
		{"agent by another spelling", plans.SessionFilter{Agent: "GEMINI_CLI"}, []string{"md"}},
		{"host", plans.SessionFilter{Host: "box2"}, []string{"md", "done"}},
		{"this machine", plans.SessionFilter{Host: plans.LocalHost}, []string{"ended", "idle", "working"}},
		{"directory and under", plans.SessionFilter{Dir: "/home/a/web/"}, []string{"idle", "done", "working"}},
		{"directory is not a prefix of a name", plans.SessionFilter{Dir: "/home/a/we"}, nil},
		{"text in a title, any case", plans.SessionFilter{Text: "LOGIN"}, []string{"working"}},
		{"text in an entry", plans.SessionFilter{Text: "step a of tie"}, []string{"tie-b", "tie-a"}},
		{"text in markdown, wildcards literal", plans.SessionFilter{Text: "redis_100%"}, []string{"md"}},
		{"a wildcard is not one", plans.SessionFilter{Text: "redis_1000"}, nil},
		{"text in a directory", plans.SessionFilter{Text: "/srv"}, []string{"md"}},
		{"active", plans.SessionFilter{State: plans.StateActive}, []string{"tie-a", "md", "working"}},
		{"done", plans.SessionFilter{State: plans.StateDone}, []string{"tie-b", "done"}},
		{"gone", plans.SessionFilter{State: plans.StateGone}, []string{"ended", "idle"}},
		{"ids", plans.SessionFilter{IDs: []string{"md", "noplan", "nope", "idle"}}, []string{"idle", "md"}},
		{"no ids", plans.SessionFilter{IDs: []string{}}, nil},
		{"together", plans.SessionFilter{Agent: "claude", Host: plans.LocalHost, State: plans.StateActive, Text: "fix"}, []string{"working"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, more := list(tt.f, plans.SessionCursor{}, 10)
			same(t, tt.name, ids, tt.want)
			if more {
				t.Fatalf("more after %v", ids)
			}
		})
	}
	if ids, more := list(plans.SessionFilter{State: plans.StateActive}, plans.SessionCursor{}, 2); !more || len(ids) != 2 {
		t.Fatalf("a full page of active = %v, more %v", ids, more)
	}
}

// testWentIdle: WentIdle lists the sessions with a plan, not ended, whose last sighting is in
// (after, upTo], oldest first; the bounds are exact to the nanosecond.
func testWentIdle(t *testing.T, s plans.Store) {
	ctx := context.Background()
	ended, noPlan, removedOnly := session("ended", 15), session("no-plan", 15), session("removed-only", 15)
	ended.Ended = true
	gone := plan("removed-only", "p", 1, 1)
	gone.Removed = true
	commit(t, s, &plans.Changes{
		Sessions: []*plans.Session{session("at-after", 10), session("in", 15), session("at-upto", 20), session("later", 25),
			session("in-early", 12), ended, noPlan, removedOnly},
		Plans: []*plans.Plan{plan("at-after", "p", 1, 1), plan("in", "p", 1, 1), plan("at-upto", "p", 1, 1), plan("later", "p", 1, 1),
			plan("in-early", "p", 1, 1), plan("ended", "p", 1, 1), gone},
	})
	got, err := s.WentIdle(ctx, at(10), at(20))
	if err != nil {
		t.Fatal(err)
	}
	same(t, "went idle in (10s, 20s]", got, []string{"in-early", "in", "at-upto"})
	if got, err := s.WentIdle(ctx, at(20), at(20)); err != nil || len(got) != 0 {
		t.Fatalf("an empty window: %v, %v", got, err)
	}
	if got, err := s.WentIdle(ctx, at(20).Add(-time.Nanosecond), at(20)); err != nil || len(got) != 1 || got[0] != "at-upto" {
		t.Fatalf("a window of a nanosecond: %v, %v", got, err)
	}
}

// TallyOf is what SessionPlans.Tally counts of ps, for comparing a store's tally with.
func TallyOf(ps []plans.Plan) plans.Tally {
	var g plans.SessionPlans
	for _, p := range ps {
		g.Add(p)
	}
	return g.Tally
}

// testOutline: Outline names a session's newest plans that are not removed, newest first (ties
// by id), decodes only those asked for, and tallies them all; a session without plans has an
// empty outline, one that does not exist is not found.
func testOutline(t *testing.T, s plans.Store) {
	ctx := context.Background()
	dag := plan("s", "flow", 1, 30)
	dag.Kind, dag.Type, dag.Entries = plans.KindDAG, "_dag", nil
	removed := plan("s", "gone", 1, 40)
	removed.Removed = true
	tie := plan("s", "b", 1, 20)
	tie.Entries = append(tie.Entries, plans.Entry{Content: "done", Priority: "low", Status: plans.StatusCompleted})
	commit(t, s, &plans.Changes{
		Sessions: []*plans.Session{session("s", 50), session("empty", 50)},
		Plans:    []*plans.Plan{plan("s", "old", 1, 10), tie, plan("s", "a", 1, 20), dag, removed},
	})
	isDAG := func(r plans.PlanRef) bool { return r.Kind == plans.KindDAG }
	o, err := s.Outline(ctx, "s", 3, isDAG)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "session", o.Session.ID, "s")
	same(t, "newest three", o.Newest, []plans.PlanRef{{ID: "flow", Kind: plans.KindDAG}, {ID: "a", Kind: plans.KindItems}, {ID: "b", Kind: plans.KindItems}})
	same(t, "tally", o.Tally, plans.Tally{Plans: 4, Entries: 4, Open: 3})
	if len(o.Plans) != 1 || o.Plans[0].ID != "flow" || o.Plans[0].Kind != plans.KindDAG {
		t.Fatalf("the plans asked for: %+v", o.Plans)
	}
	// What is asked for beyond the newest n is not read.
	o, err = s.Outline(ctx, "s", 1, func(r plans.PlanRef) bool { return r.ID == "old" })
	if err != nil || len(o.Newest) != 1 || len(o.Plans) != 0 {
		t.Fatalf("one named, an older one asked for: %+v, %v", o, err)
	}
	want, err := s.Plan(ctx, "s", "old")
	if err != nil {
		t.Fatal(err)
	}
	o, err = s.Outline(ctx, "s", 10, func(r plans.PlanRef) bool { return r.ID == "old" })
	if err != nil || len(o.Newest) != 4 || len(o.Plans) != 1 || !reflect.DeepEqual(o.Plans[0], want) {
		t.Fatalf("every plan named, the oldest whole: %+v, %v", o, err)
	}
	o, err = s.Outline(ctx, "empty", 6, nil)
	if err != nil || o.Session.ID != "empty" || len(o.Newest) != 0 || o.Tally != (plans.Tally{}) {
		t.Fatalf("a session without plans: %+v, %v", o, err)
	}
	if _, err := s.Outline(ctx, "nope", 6, nil); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("a session that does not exist: %v", err)
	}
}

// testRecentPlan: RecentPlan finds a plan among its session's n newest that are not removed
// (ties by id), and nothing else.
func testRecentPlan(t *testing.T, s plans.Store) {
	ctx := context.Background()
	removed := plan("s", "gone", 1, 40)
	removed.Removed = true
	commit(t, s, &plans.Changes{
		Sessions: []*plans.Session{session("s", 50)},
		Plans:    []*plans.Plan{plan("s", "old", 1, 10), plan("s", "b", 1, 20), plan("s", "a", 1, 20), plan("s", "new", 1, 30), removed},
	})
	for _, tt := range []struct {
		id   string
		n    int
		want bool
	}{
		{"new", 1, true}, {"a", 1, false}, {"a", 2, true}, {"b", 2, false}, {"b", 3, true},
		{"old", 3, false}, {"old", 4, true}, {"gone", 10, false}, {"nope", 10, false},
	} {
		p, ok, err := s.RecentPlan(ctx, "s", tt.id, tt.n)
		if err != nil || ok != tt.want || ok && (p.ID != tt.id || p.SessionID != "s") {
			t.Errorf("RecentPlan(%s, %d) = %s, %v, %v; want found %v", tt.id, tt.n, p.ID, ok, err, tt.want)
		}
	}
	if _, ok, err := s.RecentPlan(ctx, "nope", "new", 10); ok || err != nil {
		t.Errorf("a plan of a session that does not exist: %v, %v", ok, err)
	}
}

// Package planstest states the plans.Store contract as tests. Every implementation runs them:
//
//	func TestPlansContract(t *testing.T) { planstest.Run(t, openPlans, revisionBytes) }
package planstest

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// Run runs the contract suite. open returns an empty store that lives until the test ends;
// size measures what its revisions take.
func Run(t *testing.T, open func(t *testing.T) plans.Store, size RevisionBytes) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, plans.Store)
	}{
		{"round trip of every type", testRoundTrip},
		{"not found", testNotFound},
		{"Seq increases and ChangedSince is exact", testSeq},
		{"Overview filters and orders", testOverview},
		{"History is oldest first", testHistory},
		{"SessionPlans, ToolCalls and Sessions order", testListOrder},
		{"Activity merges and lists the newest", testActivity},
		{"ListSessions pages by cursor and filters", testListSessions},
		{"Outline names the newest plans and decodes those asked for", testOutline},
		{"RecentPlan finds a plan among its session's newest", testRecentPlan},
		{"WentIdle lists the sessions last seen in a window", testWentIdle},
		{"a commit of many rows stores every one", testBigBatch},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
	for _, tc := range listTests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
	t.Run("Prune keeps what the retention says and every plan's newest", func(t *testing.T) { testPrune(t, open) })
	t.Run("a revision that changes one entry stores about that entry", func(t *testing.T) { testRevisionSize(t, open(t), size) })
}

// t0 is the suite's clock; times are UTC and whole so they compare with reflect.DeepEqual after
// any faithful round trip.
var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func commit(t *testing.T, s plans.Store, c *plans.Changes) {
	t.Helper()
	if err := s.Commit(context.Background(), c); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func session(id string, lastSeen int) *plans.Session {
	return &plans.Session{ID: id, Agent: "agent-" + id, FirstSeen: at(0), LastSeen: at(lastSeen)}
}

func plan(sessionID, id string, rev, updated int) *plans.Plan {
	return &plans.Plan{SessionID: sessionID, ID: id, Kind: plans.KindItems, Type: "items", Revision: rev,
		Created: at(0), Updated: at(updated), Entries: []plans.Entry{{Content: "step", Priority: "high", Status: plans.StatusPending}}}
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func testRoundTrip(t *testing.T, s plans.Store) {
	ctx := context.Background()
	sess := &plans.Session{ID: "s1", Agent: "claude", AgentTitle: "Claude Code", Cwd: "/src", Title: "fix it",
		Mode: "plan", FirstSeen: at(0), LastSeen: at(5)}
	kinds := []*plans.Plan{
		{SessionID: "s1", ID: "main", Kind: plans.KindItems, Type: "items", Revision: 1, Created: at(0), Updated: at(1), Agent: "claude",
			Entries: []plans.Entry{{Content: "a", Priority: "high", Status: plans.StatusCompleted, Meta: json.RawMessage(`{"k":1}`)},
				{Content: "b", Priority: "low", Status: "_custom"}},
			Meta: json.RawMessage(`{"m":true}`), Warnings: []string{"odd"}, Replayed: true},
		{SessionID: "s1", ID: "md", Kind: plans.KindMarkdown, Type: "markdown", Revision: 1, Created: at(0), Updated: at(2), Markdown: "# Plan\n\n- x"},
		{SessionID: "s1", ID: "file", Kind: plans.KindFile, Type: "file", Revision: 1, Created: at(0), Updated: at(3), URI: "file:///src/PLAN.md"},
		{SessionID: "s1", ID: "graph", Kind: plans.KindDAG, Type: "_dag", Revision: 1, Created: at(0), Updated: at(4), Raw: json.RawMessage(`{"calls":[{"id":"a"}]}`)},
		{SessionID: "s1", ID: "x", Kind: plans.KindCustom, Type: "_x", Revision: 1, Created: at(0), Updated: at(5), Raw: json.RawMessage(`{"any":["thing"]}`)},
	}
	tc := &plans.ToolCall{SessionID: "s1", ID: "t1", Title: "Read", Kind: "read", Status: "completed", Name: "read_file",
		Content: json.RawMessage(`[{"type":"text"}]`), Locations: json.RawMessage(`[{"path":"/a"}]`),
		RawInput: json.RawMessage(`{"p":1}`), RawOutput: json.RawMessage(`"ok"`), Meta: json.RawMessage(`{"z":0}`), Created: at(1), Updated: at(2)}
	act := &plans.Activity{SessionID: "s1", At: at(3), Kind: "message", MessageID: "m1", Text: "hello", Raw: json.RawMessage(`{"r":1}`)}
	c := &plans.Changes{Sessions: []*plans.Session{sess}, Plans: kinds, Revisions: kinds, ToolCalls: []*plans.ToolCall{tc}, Activity: []*plans.Activity{act}}
	commit(t, s, c)
	if sess.Seq == 0 || sess.Seq != s.Seq() {
		t.Fatalf("Commit gave the session Seq %d, store Seq %d; want the same non-zero number", sess.Seq, s.Seq())
	}
	if act.ID == 0 {
		t.Fatal("Commit did not give the new activity an ID")
	}

	gotSess, err := s.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Session", gotSess, *sess)
	for _, p := range kinds {
		if p.Seq != sess.Seq {
			t.Fatalf("plan %q has Seq %d, want its batch's %d", p.ID, p.Seq, sess.Seq)
		}
		got, err := s.Plan(ctx, "s1", p.ID)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "Plan "+p.ID, got, *p)
		hist, err := s.History(ctx, "s1", p.ID)
		if err != nil || len(hist) != 1 {
			t.Fatalf("History(%q) = %d revisions, %v", p.ID, len(hist), err)
		}
		same(t, "revision of "+p.ID, hist[0], plans.Revision{Revision: 1, At: p.Updated, Plan: *p})
	}
	gotTC, err := s.ToolCall(ctx, "s1", "t1")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "ToolCall", gotTC, *tc)
	gotAct, err := s.LastActivity(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "LastActivity", gotAct, *act)
}

func testNotFound(t *testing.T, s plans.Store) {
	ctx := context.Background()
	commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s1", 1)}, Plans: []*plans.Plan{plan("s1", "p", 1, 1)}})
	for _, tt := range []struct {
		name string
		get  func() error
	}{
		{"Session", func() error { _, err := s.Session(ctx, "nope"); return err }},
		{"Plan of an unknown session", func() error { _, err := s.Plan(ctx, "nope", "p"); return err }},
		{"unknown Plan", func() error { _, err := s.Plan(ctx, "s1", "nope"); return err }},
		{"ToolCall", func() error { _, err := s.ToolCall(ctx, "s1", "nope"); return err }},
		{"LastActivity", func() error { _, err := s.LastActivity(ctx, "s1"); return err }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.get(); errs.KindOf(err) != errs.NotFound {
				t.Fatalf("error = %v (kind %v), want kind NotFound", err, errs.KindOf(err))
			}
		})
	}
	for _, tt := range []struct {
		name string
		list func() (int, error)
	}{
		{"SessionPlans", func() (int, error) { l, err := s.SessionPlans(ctx, "nope"); return len(l), err }},
		{"ToolCalls", func() (int, error) { l, err := s.ToolCalls(ctx, "nope"); return len(l), err }},
		{"Activity", func() (int, error) { l, err := s.Activity(ctx, "nope", 10); return len(l), err }},
		{"History", func() (int, error) { l, err := s.History(ctx, "s1", "nope"); return len(l), err }},
	} {
		t.Run(tt.name+" of nothing is empty", func(t *testing.T) {
			if n, err := tt.list(); n != 0 || err != nil {
				t.Fatalf("%d items, %v; want none and no error", n, err)
			}
		})
	}
}

func testSeq(t *testing.T, s plans.Store) {
	ctx := context.Background()
	if s.Seq() != 0 {
		t.Fatalf("an empty store has Seq %d", s.Seq())
	}
	var seqs []uint64
	for _, ids := range [][]string{{"a", "b"}, {"b"}, {"c"}, {"a"}} {
		c := &plans.Changes{}
		for _, id := range ids {
			c.Sessions = append(c.Sessions, session(id, 1))
		}
		commit(t, s, c)
		for _, sess := range c.Sessions {
			if sess.Seq != s.Seq() {
				t.Fatalf("session %q got Seq %d, store says %d", sess.ID, sess.Seq, s.Seq())
			}
		}
		if n := len(seqs); n > 0 && s.Seq() <= seqs[n-1] {
			t.Fatalf("Seq went from %d to %d", seqs[n-1], s.Seq())
		}
		seqs = append(seqs, s.Seq())
	}
	// Each session is reported once, at its newest change, in the order of those changes.
	for _, tt := range []struct {
		since uint64
		want  []string
	}{
		{0, []string{"b", "c", "a"}},
		{seqs[0], []string{"b", "c", "a"}},
		{seqs[1], []string{"c", "a"}},
		{seqs[2], []string{"a"}},
		{seqs[3], nil},
	} {
		ids, cur, err := s.ChangedSince(ctx, tt.since)
		if err != nil || !slices.Equal(ids, tt.want) || cur != seqs[3] {
			t.Fatalf("ChangedSince(%d) = %v, %d, %v; want %v, %d", tt.since, ids, cur, err, tt.want, seqs[3])
		}
	}
}

func testOverview(t *testing.T, s plans.Store) {
	ctx := context.Background()
	now, idle := at(1000), 100*time.Second
	ended := session("ended", 990)
	ended.Ended = true
	removed := plan("old", "gone", 2, 10)
	removed.Removed = true
	c := &plans.Changes{
		Sessions: []*plans.Session{session("recent", 990), session("earlier", 950), session("tie-b", 960), session("tie-a", 960),
			session("idle", 900), ended, session("old", 980), session("empty", 999)},
		Plans: []*plans.Plan{
			plan("recent", "p1", 1, 10), plan("recent", "p3", 1, 30), plan("recent", "p2", 1, 30),
			plan("earlier", "only", 1, 1), plan("tie-a", "x", 1, 1), plan("tie-b", "y", 1, 1),
			plan("idle", "p", 1, 1), plan("ended", "p", 1, 1), removed,
		},
	}
	commit(t, s, c)
	got, seq, err := s.Overview(ctx, now, idle)
	if err != nil {
		t.Fatal(err)
	}
	if seq != s.Seq() {
		t.Fatalf("Overview Seq = %d, want %d", seq, s.Seq())
	}
	type row struct {
		Session string
		Plans   []string
	}
	var rows []row
	for _, sp := range got {
		r := row{Session: sp.Session.ID}
		for _, p := range sp.Plans {
			r.Plans = append(r.Plans, p.ID)
		}
		rows = append(rows, r)
	}
	// Most recently active first, ties by id; plans most recently updated first, ties by id.
	// Out: idle (not seen within idle), ended, old (only a removed plan), empty (no plan).
	want := []row{
		{"recent", []string{"p2", "p3", "p1"}},
		{"tie-a", []string{"x"}},
		{"tie-b", []string{"y"}},
		{"earlier", []string{"only"}},
	}
	same(t, "Overview", rows, want)
	same(t, "Overview session", got[0].Session, *c.Sessions[0])
	same(t, "Overview plan", got[0].Plans[0], *c.Plans[2])

	if got, _, err := s.Overview(ctx, at(2000), idle); err != nil || len(got) != 0 {
		t.Fatalf("Overview long after = %d sessions, %v; want none", len(got), err)
	}
}

func testHistory(t *testing.T, s plans.Store) {
	ctx := context.Background()
	// Several revisions in one batch, then more in later ones: all kept, oldest first.
	var revs []*plans.Plan
	for r := 1; r <= 3; r++ {
		p := plan("s", "p", r, r)
		p.Markdown = "rev"
		revs = append(revs, p)
	}
	commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s", 1)}, Plans: revs[2:], Revisions: revs})
	for r := 4; r <= 5; r++ {
		p := plan("s", "p", r, r)
		revs = append(revs, p)
		commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s", r)}, Plans: []*plans.Plan{p}, Revisions: []*plans.Plan{p}})
	}
	other := plan("s", "other", 1, 1)
	commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s", 6)}, Plans: []*plans.Plan{other}, Revisions: []*plans.Plan{other}})
	hist, err := s.History(ctx, "s", "p")
	if err != nil || len(hist) != len(revs) {
		t.Fatalf("History = %d revisions, %v; want %d", len(hist), err, len(revs))
	}
	for i, h := range hist {
		same(t, "revision", h, plans.Revision{Revision: i + 1, At: revs[i].Updated, Plan: *revs[i]})
	}
	cur, err := s.Plan(ctx, "s", "p")
	if err != nil || cur.Revision != 5 {
		t.Fatalf("Plan = revision %d, %v; want the newest", cur.Revision, err)
	}
}

func testListOrder(t *testing.T, s plans.Store) {
	ctx := context.Background()
	gone := plan("s", "gone", 1, 50)
	gone.Removed = true
	commit(t, s, &plans.Changes{
		Sessions: []*plans.Session{session("s", 30), session("new", 40), session("old", 10)},
		Plans:    []*plans.Plan{plan("s", "b", 1, 20), gone, plan("s", "a", 1, 20), plan("s", "c", 1, 30), plan("new", "z", 1, 1)},
		ToolCalls: []*plans.ToolCall{
			{SessionID: "s", ID: "t2", Title: "two", Status: "pending", Created: at(2)},
			{SessionID: "s", ID: "t1b", Title: "one b", Status: "pending", Created: at(1)},
			{SessionID: "s", ID: "t1a", Title: "one a", Status: "pending", Created: at(1)},
			{SessionID: "new", ID: "t0", Title: "elsewhere", Status: "pending", Created: at(0)},
		},
	})
	ps, err := s.SessionPlans(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	// Live plans before removed ones, each newest first, ties by id.
	same(t, "SessionPlans", ids, []string{"c", "a", "b", "gone"})

	tcs, err := s.ToolCalls(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, tc := range tcs {
		ids = append(ids, tc.ID)
	}
	same(t, "ToolCalls (in the order they started, ties by id)", ids, []string{"t1a", "t1b", "t2"})

	// A tool call's update replaces its state but keeps its place.
	upd := &plans.ToolCall{SessionID: "s", ID: "t1a", Title: "one a", Status: "completed", Created: at(1), Updated: at(9)}
	commit(t, s, &plans.Changes{ToolCalls: []*plans.ToolCall{upd}})
	got, err := s.ToolCall(ctx, "s", "t1a")
	if err != nil || got.Status != "completed" {
		t.Fatalf("ToolCall after update = %+v, %v", got, err)
	}
	if tcs, err := s.ToolCalls(ctx, "s"); err != nil || tcs[0].ID != "t1a" {
		t.Fatalf("ToolCalls after update = %+v, %v; want t1a still first", tcs, err)
	}
	// The newest ones, oldest first, and how many there are in all.
	recent, total, err := s.RecentToolCalls(ctx, "s", 2)
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, tc := range recent {
		ids = append(ids, tc.ID)
	}
	same(t, "RecentToolCalls(2)", ids, []string{"t1b", "t2"})
	if total != 3 {
		t.Fatalf("RecentToolCalls total = %d, want 3", total)
	}
	if recent, total, err := s.RecentToolCalls(ctx, "nope", 5); err != nil || len(recent) != 0 || total != 0 {
		t.Fatalf("RecentToolCalls of an unknown session = %v, %d, %v", recent, total, err)
	}

	sessions, err := s.Sessions(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, sess := range sessions {
		ids = append(ids, sess.ID)
	}
	same(t, "Sessions(2) (most recent first)", ids, []string{"new", "s"})
}

func testActivity(t *testing.T, s plans.Store) {
	ctx := context.Background()
	var texts []string
	for i := range 5 {
		a := &plans.Activity{SessionID: "s", At: at(i), Kind: "message", Text: string(rune('a' + i))}
		commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s", i)}, Activity: []*plans.Activity{a}})
		texts = append(texts, a.Text)
	}
	commit(t, s, &plans.Changes{Activity: []*plans.Activity{{SessionID: "other", At: at(9), Kind: "message", Text: "x"}}})

	// A chunk of the same message merges into the latest activity instead of adding one.
	last, err := s.LastActivity(ctx, "s")
	if err != nil || last.Text != "e" || last.ID == 0 {
		t.Fatalf("LastActivity = %+v, %v", last, err)
	}
	last.Text += "+more"
	commit(t, s, &plans.Changes{Activity: []*plans.Activity{&last}})
	texts[4] = last.Text
	merged, err := s.LastActivity(ctx, "s")
	if err != nil || merged.ID != last.ID || merged.Text != "e+more" {
		t.Fatalf("LastActivity after merge = %+v, %v; want ID %d with the merged text", merged, err, last.ID)
	}

	for _, tt := range []struct {
		limit int
		want  []string
	}{{3, texts[2:]}, {10, texts}} {
		got, err := s.Activity(ctx, "s", tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var gotTexts []string
		for i, a := range got {
			gotTexts = append(gotTexts, a.Text)
			// Every item has its own id, in order, merged or not: clients tell items apart by it.
			if a.ID == 0 || i > 0 && a.ID <= got[i-1].ID {
				t.Errorf("Activity[%d].ID = %d after %d", i, a.ID, got[max(i-1, 0)].ID)
			}
		}
		same(t, "Activity (the newest, oldest first)", gotTexts, tt.want)
		if n := len(got); n > 0 && got[n-1].ID != merged.ID {
			t.Errorf("the newest activity has ID %d, LastActivity %d", got[n-1].ID, merged.ID)
		}
	}
}

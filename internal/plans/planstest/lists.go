package planstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/paging/pagingtest"
	"github.com/plandash/plandash/internal/plans"
)

// listTests are the paged lists' part of the contract (plans.Lister).
var listTests = []struct {
	name string
	run  func(*testing.T, plans.Store)
}{
	{"SessionsPage walks every session once, newest first", testSessionsPage},
	{"ActivePage pages the overview by session", testActivePage},
	{"ToolCallsPage walks oldest first and sees calls added behind it", testToolCallsPage},
	{"RevisionsPage and RevisionAt read one page and one revision", testRevisionsPage},
}

func ids[T any](rows []T, id func(T) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = id(r)
	}
	return out
}

func testSessionsPage(t *testing.T, s plans.Store) {
	ctx := context.Background()
	// Ties on last_seen are broken by id, descending.
	var ss []*plans.Session
	for i, seen := range []int{5, 9, 9, 9, 2, 7, 1} {
		ss = append(ss, session(fmt.Sprintf("s%d", i), seen))
	}
	commit(t, s, &plans.Changes{Sessions: ss})
	want := []string{"s3", "s2", "s1", "s5", "s0", "s4", "s6"}
	for _, limit := range []int{1, 2, 3, 7, 50} {
		got := pagingtest.Walk(t, limit, func(r paging.Request) ([]plans.Session, paging.Cursor, error) { return s.SessionsPage(ctx, r) }, nil)
		same(t, fmt.Sprintf("limit %d", limit), ids(got, func(s plans.Session) string { return s.ID }), want)
	}
	// Sessions created while a walk is under way land ahead of it: the walk still sees every
	// session that was there when it started, once.
	k := 0
	var last *plans.Session
	got := pagingtest.Walk(t, 2, func(r paging.Request) ([]plans.Session, paging.Cursor, error) { return s.SessionsPage(ctx, r) }, func(int) {
		k++
		last = session(fmt.Sprintf("new%d", k), 100+k)
		commit(t, s, &plans.Changes{Sessions: []*plans.Session{last}})
	})
	same(t, "walk with inserts", ids(got, func(s plans.Session) string { return s.ID }), want)
	first, _, err := s.SessionsPage(ctx, paging.Request{Limit: 1})
	if err != nil || len(first) != 1 || first[0].ID != fmt.Sprintf("new%d", k) {
		t.Fatalf("a new walk starts with the newest session: %v, %v", first, err)
	}
	same(t, "a session as listed", first[0], *last)
}

func testActivePage(t *testing.T, s plans.Store) {
	ctx := context.Background()
	now, idle := at(1000), 100*time.Second
	c := &plans.Changes{}
	for i := range 5 {
		id := fmt.Sprintf("a%d", i)
		c.Sessions = append(c.Sessions, session(id, 950+i))
		c.Plans = append(c.Plans, plan(id, "p", 1, 1), plan(id, "q", 1, 2))
	}
	gone := plan("a0", "gone", 1, 3)
	gone.Removed = true
	idleS, ended, bare := session("idle", 800), session("ended", 990), session("bare", 990)
	ended.Ended = true
	c.Sessions = append(c.Sessions, idleS, ended, bare)
	c.Plans = append(c.Plans, gone, plan("idle", "p", 1, 1), plan("ended", "p", 1, 1))
	commit(t, s, c)
	var seqs []uint64
	got := pagingtest.Walk(t, 2, func(r paging.Request) ([]plans.SessionPlans, paging.Cursor, error) {
		g, next, seq, err := s.ActivePage(ctx, now, idle, r)
		seqs = append(seqs, seq)
		return g, next, err
	}, nil)
	same(t, "active sessions", ids(got, func(g plans.SessionPlans) string { return g.Session.ID }), []string{"a4", "a3", "a2", "a1", "a0"})
	for _, g := range got {
		same(t, "plans of "+g.Session.ID, ids(g.Plans, func(p plans.Plan) string { return p.ID }), []string{"q", "p"})
	}
	if seqs[0] != s.Seq() || seqs[0] == 0 {
		t.Fatalf("ActivePage's Seq = %d, want the store's %d", seqs[0], s.Seq())
	}
	// The same set as Overview, in the same order.
	all, _, err := s.Overview(ctx, now, idle)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "pages against Overview", got, all)
	none, next, _, err := s.ActivePage(ctx, at(5000), idle, paging.Request{Limit: 2})
	if err != nil || len(none) != 0 || !next.IsZero() {
		t.Fatalf("nothing active: %v, %v, %v", none, next, err)
	}
}

func testToolCallsPage(t *testing.T, s plans.Store) {
	ctx := context.Background()
	call := func(id string, sec int) *plans.ToolCall {
		return &plans.ToolCall{SessionID: "s", ID: id, Title: "call " + id, Status: "pending", Created: at(sec), Updated: at(sec)}
	}
	commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s", 1), session("t", 1)},
		ToolCalls: []*plans.ToolCall{call("c", 3), call("a", 3), call("b", 1), call("d", 4), {SessionID: "t", ID: "x", Created: at(2)}}})
	k := 0
	got := pagingtest.Walk(t, 2, func(r paging.Request) ([]plans.ToolCall, paging.Cursor, error) { return s.ToolCallsPage(ctx, "s", r) }, func(int) {
		k++
		commit(t, s, &plans.Changes{ToolCalls: []*plans.ToolCall{call(fmt.Sprintf("n%d", k), 10+k)}})
	})
	want := []string{"b", "a", "c", "d"}
	for i := 1; i <= k; i++ {
		want = append(want, fmt.Sprintf("n%d", i))
	}
	same(t, "tool calls", ids(got, func(c plans.ToolCall) string { return c.ID }), want)
	same(t, "a call as listed", got[0], *call("b", 1))
	none, next, err := s.ToolCallsPage(ctx, "nobody", paging.Request{Limit: 2})
	if err != nil || len(none) != 0 || !next.IsZero() {
		t.Fatalf("no calls: %v, %v, %v", none, next, err)
	}
}

func testRevisionsPage(t *testing.T, s plans.Store) {
	ctx := context.Background()
	var revs []*plans.Plan
	for r := 1; r <= 7; r++ {
		p := plan("s", "p", r, r)
		p.Entries = append(p.Entries, plans.Entry{Content: fmt.Sprintf("entry %d", r), Status: plans.StatusPending})
		revs = append(revs, p)
		commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s", r)}, Plans: []*plans.Plan{p}, Revisions: []*plans.Plan{p}})
	}
	var newest []int
	got := pagingtest.Walk(t, 3, func(r paging.Request) ([]plans.RevisionInfo, paging.Cursor, error) {
		l, next, n, err := s.RevisionsPage(ctx, "s", "p", r)
		newest = append(newest, n)
		return l, next, err
	}, nil)
	for i, ri := range got {
		if ri.Revision != 7-i || !ri.At.Equal(at(7-i)) {
			t.Fatalf("revision %d listed as %+v", 7-i, ri)
		}
	}
	if len(got) != 7 || newest[0] != 7 {
		t.Fatalf("%d revisions listed, newest %d; want 7", len(got), newest[0])
	}
	for _, n := range []int{1, 4, 7} {
		r, err := s.RevisionAt(ctx, "s", "p", n)
		if err != nil {
			t.Fatalf("RevisionAt(%d): %v", n, err)
		}
		same(t, fmt.Sprintf("revision %d", n), r, plans.Revision{Revision: n, At: revs[n-1].Updated, Plan: *revs[n-1]})
	}
	for _, n := range []int{0, 8} {
		if _, err := s.RevisionAt(ctx, "s", "p", n); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("RevisionAt(%d): %v, want not found", n, err)
		}
	}
	none, next, n, err := s.RevisionsPage(ctx, "s", "nothing", paging.Request{Limit: 3})
	if err != nil || len(none) != 0 || !next.IsZero() || n != 0 {
		t.Fatalf("a plan without revisions: %v, %v, %d, %v", none, next, n, err)
	}
}

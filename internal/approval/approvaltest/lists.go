package approvaltest

import (
	"context"
	"fmt"
	"testing"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/paging/pagingtest"
)

// listTests are the paged lists' part of the contract (approval.Lister).
var listTests = []struct {
	name string
	run  func(*testing.T, approval.Store)
}{
	{"PendingPage and DecidedPage walk every request once", testRequestPages},
	{"AuditPage filters and walks newest first", testAuditPage},
}

func testRequestPages(t *testing.T, s approval.Store) {
	ctx := context.Background()
	// Ties on created (and on decided) are broken by id.
	for i, created := range []int{5, 3, 3, 9, 1, 3} {
		create(t, s, request(fmt.Sprintf("r%d", i), created, 1000))
	}
	k := 0
	pending := pagingtest.Walk(t, 2, func(r paging.Request) ([]approval.Request, paging.Cursor, error) { return s.PendingPage(ctx, r) }, func(int) {
		k++
		create(t, s, request(fmt.Sprintf("new%d", k), 100+k, 1000))
	})
	want := []string{"r4", "r1", "r2", "r5", "r0", "r3"}
	for i := 1; i <= k; i++ {
		want = append(want, fmt.Sprintf("new%d", i))
	}
	same(t, "pending walk", ids(pending), want)
	same(t, "a request as listed", pending[0], request("r4", 1, 1000))

	for i, sec := range []int{50, 60, 50, 70} {
		r := pending[i]
		if ok, err := s.Decide(ctx, decided(r, approval.Approve, sec, "ann"), nil); err != nil || !ok {
			t.Fatalf("Decide(%s) = %v, %v", r.ID, ok, err)
		}
	}
	got := pagingtest.Walk(t, 3, func(r paging.Request) ([]approval.Request, paging.Cursor, error) { return s.DecidedPage(ctx, r) }, nil)
	same(t, "decided walk", ids(got), []string{"r5", "r1", "r4", "r2"})
	left := pagingtest.Walk(t, 50, func(r paging.Request) ([]approval.Request, paging.Cursor, error) { return s.PendingPage(ctx, r) }, nil)
	if len(left) != len(want)-4 {
		t.Fatalf("%d pending after four decisions, want %d", len(left), len(want)-4)
	}
}

func testAuditPage(t *testing.T, s approval.Store) {
	ctx := context.Background()
	for i := range 7 {
		r := request(fmt.Sprintf("a%d", i), i, 1000)
		if i%2 == 1 {
			r.Agent = "other"
		}
		create(t, s, r)
	}
	all := pagingtest.Walk(t, 2, func(r paging.Request) ([]approval.AuditEvent, paging.Cursor, error) {
		return s.AuditPage(ctx, approval.AuditFilter{}, r)
	}, nil)
	var reqs []string
	for i, ev := range all {
		reqs = append(reqs, ev.RequestID)
		if i > 0 && ev.ID >= all[i-1].ID {
			t.Fatalf("event %d (id %d) is not older than the one before (id %d)", i, ev.ID, all[i-1].ID)
		}
	}
	same(t, "audit walk", reqs, []string{"a6", "a5", "a4", "a3", "a2", "a1", "a0"})
	other := pagingtest.Walk(t, 2, func(r paging.Request) ([]approval.AuditEvent, paging.Cursor, error) {
		return s.AuditPage(ctx, approval.AuditFilter{Agent: "other", Limit: 1}, r)
	}, nil)
	reqs = nil
	for _, ev := range other {
		reqs = append(reqs, ev.RequestID)
	}
	same(t, "one agent's events, the filter's Limit ignored", reqs, []string{"a5", "a3", "a1"})
	// The same events Audit returns.
	flat, err := s.Audit(ctx, approval.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "pages against Audit", all, flat)
}

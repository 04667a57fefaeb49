package approvaltest

import (
	"context"
	"testing"

	"github.com/plandash/plandash/internal/approval"
)

// testChangesRequested: a review (changes requested with comments) round-trips whole, counts
// as decided, and leaves the pending lists.
func testChangesRequested(t *testing.T, s approval.Store) {
	ctx := context.Background()
	r := request("rev", 1, 100)
	create(t, s, r)
	d := decided(r, approval.RequestChanges, 5, "ann")
	d.Decision.Feedback = []approval.Comment{
		{Target: approval.TargetEntry, Entry: 2, Quote: "b", Comment: "split this"},
		{Target: approval.TargetPlan, Comment: "and add tests"},
	}
	d.Decision.FeedbackText = approval.FeedbackText(d.Decision.Comment, d.Decision.Feedback)
	ok, err := s.Decide(ctx, d, decisionEvent(d))
	if err != nil || !ok {
		t.Fatalf("Decide = %v, %v; want stored", ok, err)
	}
	got, err := s.Get(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Get after changes requested", got, d)
	if got.Status != approval.ChangesRequested || !got.Decided() {
		t.Fatalf("status %q, decided %v; want changes_requested, decided", got.Status, got.Decided())
	}
	if n, err := s.CountPending(ctx); err != nil || n != 0 {
		t.Fatalf("CountPending = %d, %v; want 0", n, err)
	}
	list, err := s.Decided(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Decided", ids(list), []string{"rev"})
	ev, err := s.Audit(ctx, approval.AuditFilter{SessionID: r.SessionID, Limit: 10})
	if err != nil || len(ev) != 2 || ev[0].Event != approval.EventChanges {
		t.Fatalf("Audit = %+v, %v; want the changes_requested event first", ev, err)
	}
}

// testLatestInSession: a session's newest request at or before a time, whatever its status;
// other sessions and later requests do not count.
func testLatestInSession(t *testing.T, s approval.Store) {
	ctx := context.Background()
	mk := func(id, sess string, created int) approval.Request {
		r := request(id, created, 1000)
		r.SessionID = sess
		create(t, s, r)
		return r
	}
	mk("a1", "A", 10)
	a2 := mk("a2", "A", 20)
	mk("b1", "B", 25)
	mk("a3", "A", 30)
	d := decided(a2, approval.RequestChanges, 22, "ann")
	if ok, err := s.Decide(ctx, d, decisionEvent(d)); err != nil || !ok {
		t.Fatalf("Decide = %v, %v", ok, err)
	}
	for _, tc := range []struct {
		sess   string
		sec    int
		want   string
		status approval.Status
	}{
		{"A", 5, "", ""},
		{"A", 10, "a1", approval.Pending},
		{"A", 29, "a2", approval.ChangesRequested},
		{"A", 100, "a3", approval.Pending},
		{"B", 100, "b1", approval.Pending},
		{"C", 100, "", ""},
	} {
		got, ok, err := s.LatestInSession(ctx, tc.sess, at(tc.sec))
		if err != nil {
			t.Fatal(err)
		}
		if ok != (tc.want != "") || got.ID != tc.want || got.Status != tc.status {
			t.Errorf("LatestInSession(%s, %d) = %q %q %v; want %q %q", tc.sess, tc.sec, got.ID, got.Status, ok, tc.want, tc.status)
		}
	}
}

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// A row that fails part way through a statement of many (OR FAIL keeps the rows before it in
// the statement) still leaves nothing of its batch: the batch is rolled back whole.
func TestFailedMultiRowBatchKeepsNothing(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t).Plans()
	at := time.Unix(100, 0).UTC()
	rev := func(sid string, n int) *plans.Plan {
		return &plans.Plan{SessionID: sid, ID: "p", Kind: plans.KindItems, Revision: n, Created: at, Updated: at}
	}
	if err := s.Commit(ctx, &plans.Changes{Revisions: []*plans.Plan{rev("s0", 1)}}); err != nil {
		t.Fatal(err)
	}
	seq := s.Seq()
	c := &plans.Changes{}
	for i := range 20 { // new sessions and revisions, then one revision already stored
		sid := fmt.Sprintf("s%d", i+1)
		c.Sessions = append(c.Sessions, &plans.Session{ID: sid, FirstSeen: at, LastSeen: at})
		c.Revisions = append(c.Revisions, rev(sid, 1))
	}
	c.Revisions = append(c.Revisions, rev("s0", 1))
	if err := s.Commit(ctx, c); err == nil {
		t.Fatal("a batch storing a revision twice committed")
	}
	for i := range 20 {
		sid := fmt.Sprintf("s%d", i+1)
		if _, err := s.Session(ctx, sid); !errors.Is(err, plans.ErrNotFound) {
			t.Fatalf("session %s of the failed batch: %v", sid, err)
		}
		if h, err := s.History(ctx, sid, "p"); err != nil || len(h) != 0 {
			t.Fatalf("history of %s after the failed batch: %d revisions, %v", sid, len(h), err)
		}
	}
	if s.Seq() != seq {
		t.Fatalf("Seq %d after a failed batch, want %d", s.Seq(), seq)
	}
}

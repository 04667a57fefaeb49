package planstest

import (
	"context"
	"fmt"
	"testing"

	"github.com/plandash/plandash/internal/plans"
)

// testBigBatch: one commit of many sessions, plans, revisions and tool calls (85 of each: more
// than a store may write in one statement, and not a multiple of any size it chunks by) stores
// every row as a commit of one would, the newest revision of each plan as its current row.
func testBigBatch(t *testing.T, s plans.Store) {
	ctx := context.Background()
	const n = 85
	c := &plans.Changes{}
	for i := range n {
		sid := fmt.Sprintf("s%02d", i)
		c.Sessions = append(c.Sessions, session(sid, i))
		for rev := 1; rev <= 2; rev++ {
			p := plan(sid, "p", rev, rev)
			p.Entries[0].Content = fmt.Sprintf("step %d of %s", rev, sid)
			c.Revisions = append(c.Revisions, p)
			if rev == 2 {
				c.Plans = append(c.Plans, p)
			}
		}
		c.ToolCalls = append(c.ToolCalls, &plans.ToolCall{SessionID: sid, ID: "call", Title: "read " + sid, Status: "pending", Created: at(i), Updated: at(i)})
		c.NewToolCalls = append(c.NewToolCalls, plans.PlanKey{SessionID: sid, PlanID: "call"})
	}
	commit(t, s, c)
	for i := range n {
		sid := fmt.Sprintf("s%02d", i)
		sess, err := s.Session(ctx, sid)
		if err != nil || sess.LastSeen != at(i) || sess.Seq != s.Seq() {
			t.Fatalf("session %s: %+v, %v", sid, sess, err)
		}
		p, err := s.Plan(ctx, sid, "p")
		if err != nil || p.Revision != 2 || p.Entries[0].Content != "step 2 of "+sid {
			t.Fatalf("plan of %s: %+v, %v", sid, p, err)
		}
		hist, err := s.History(ctx, sid, "p")
		if err != nil || len(hist) != 2 || hist[0].Plan.Entries[0].Content != "step 1 of "+sid || hist[1].Revision != 2 {
			t.Fatalf("history of %s: %+v, %v", sid, hist, err)
		}
		calls, total, err := s.RecentToolCalls(ctx, sid, 10)
		if err != nil || total != 1 || len(calls) != 1 || calls[0].Title != "read "+sid {
			t.Fatalf("tool calls of %s: %+v, %d, %v", sid, calls, total, err)
		}
	}
}

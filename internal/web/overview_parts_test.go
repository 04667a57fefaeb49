package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/web/templates"
)

// sixPlanUpdate is plan planID of session sid with five entries, the first done and entry
// doing in progress.
func sixPlanUpdate(sid string, planID, doing int) string {
	var es []string
	for i := range 5 {
		status := "pending"
		switch {
		case i < doing:
			status = "completed"
		case i == doing:
			status = "in_progress"
		}
		es = append(es, fmt.Sprintf(`{"content":"Step %d of plan %d: change the handler and its tests","priority":"medium","status":%q}`, i+1, planID, status))
	}
	return update(sid, fmt.Sprintf(`{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"plan-%02d","entries":[%s]}}`, planID, strings.Join(es, ",")))
}

// TestOverviewSendsTheChangedCard: a page that shows a session's group is sent the card that
// changed and the parts of the group's head that changed, never the group; a page that does not
// show it is sent the group whole. What the socket sent before goes again as edits. A seventh
// plan puts its card first and takes the oldest out.
func TestOverviewSendsTheChangedCard(t *testing.T) {
	clk := &fakeClock{t: time.Now()}
	ts := newTestServer(t, testConfig{Now: clk.Now})
	for p := range 6 {
		clk.Add(time.Second) // plan-00 is the oldest
		ts.ingest(t, sixPlanUpdate("sess", p, 1))
	}
	group := templates.GroupID("sess")
	shows := ts.socket(t, "topic=all&shows="+group)
	other := ts.socket(t, "topic=all")
	parts := map[string]bool{templates.GroupHeadID("sess"): true, templates.GroupLastID("sess"): true, templates.GroupUsageID("sess"): true,
		templates.GroupWaitingID("sess"): true, templates.GroupMoreID("sess"): true}
	card := "p-sess-plan-03"
	for doing := 2; doing < 5; doing++ {
		clk.Add(time.Second) // "last seen" moves
		ts.ingest(t, sixPlanUpdate("sess", 3, doing))
		// Frames of one change share its seq; earlier ones still on the wire (the setup's, the
		// last change's) are left out by it.
		var got []frame
		var cardSeq uint64
		gotLast := false
		frames(t, shows, "the changed card and when the session was last seen", func(f frame) bool {
			got = append(got, f)
			if f.ID == card && strings.Count(f.HTML, `data-status="completed"`) == doing {
				if f.Parent != templates.GroupCardsID("sess") {
					t.Fatalf("card frame %+v", f)
				}
				cardSeq = f.Seq
			}
			if f.ID == templates.GroupLastID("sess") && f.Seq >= cardSeq {
				gotLast = true
			}
			return cardSeq != 0 && gotLast
		})
		size := 0
		for _, f := range got {
			if f.Seq != cardSeq {
				continue
			}
			switch {
			case f.ID == group:
				t.Fatalf("a page that shows the group was sent it whole")
			case doing > 2 && strings.HasPrefix(f.ID, "p-sess-") && f.ID != card:
				t.Fatalf("a card that did not change was sent again: %s (%d bytes)", f.ID, f.Size)
			case !parts[f.ID] && !strings.HasPrefix(f.ID, "p-sess-"):
				t.Fatalf("a page that shows the group was sent %s (%d bytes)", f.ID, f.Size)
			}
			size += f.Size
		}
		whole := next(t, other, group)
		if whole.Parent != "sessions" || strings.Count(whole.HTML, `data-testid="plan-card"`) != 6 {
			t.Fatalf("the whole group: %.300s", whole.HTML)
		}
		// Once the page holds what the socket sent, a one-entry change is a few hundred bytes of
		// edits (issue 31's goal: at most 1.2 KB a socket).
		if doing > 2 && (size > 1200 || !whole.Patch) {
			t.Errorf("change %d: %d bytes to a page that shows the group (goal ≤ 1,200); the group whole as edits: %v", doing, size, whole.Patch)
		}
		t.Logf("change %d: %d bytes to a page that shows the group, %d to one that does not", doing, size, whole.Size)
	}

	// A seventh plan: its card goes first in the group, the oldest one leaves it.
	clk.Add(time.Second)
	ts.ingest(t, sixPlanUpdate("sess", 6, 0))
	var added, removed bool
	frames(t, shows, "the new card in and the oldest out", func(f frame) bool {
		switch f.ID {
		case "p-sess-plan-06":
			added = f.Parent == templates.GroupCardsID("sess") && f.HTML != ""
		case "p-sess-plan-00":
			removed = f.HTML == ""
		case templates.GroupMoreID("sess"):
			if !strings.Contains(f.HTML, "1 more plans") {
				t.Errorf("the more link: %s", f.HTML)
			}
		case group:
			t.Fatal("a page that shows the group was sent it whole")
		}
		return added && removed
	})
}

// TestOverviewDiagramFollowsItsToolCalls: a diagram's card on an overview that shows its group
// changes when a tool call its node follows does, though the plan's revision does not.
func TestOverviewDiagramFollowsItsToolCalls(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.ingest(t, update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"flow","calls":`+dagCalls+`}}`))
	c := ts.socket(t, "topic=all&shows="+templates.GroupID("s"))
	ts.ingest(t, update("s", `{"sessionUpdate":"tool_call","toolCallId":"tc-1","title":"Fetch","status":"completed"}`))
	frames(t, c, "the diagram's card with the completed node", func(f frame) bool {
		if f.ID == templates.GroupID("s") {
			t.Fatal("a page that shows the group was sent it whole")
		}
		return f.ID == "p-s-flow" && strings.Contains(f.HTML, `data-node-id="fetch"`) &&
			strings.Contains(f.HTML, `data-status="completed"`)
	})
}

// TestOverviewRemovedPlanLeaves: a removed plan's card leaves the group of a page that shows it,
// and a plan removed and then revised again comes back: the removal is older than the revision.
func TestOverviewRemovedPlanLeaves(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	for p := range 3 {
		ts.ingest(t, sixPlanUpdate("sess", p, 1))
	}
	c := ts.socket(t, "topic=all&shows="+templates.GroupID("sess"))
	card := "p-sess-plan-01"
	ts.ingest(t, update("sess", `{"sessionUpdate":"plan_removed","planId":"plan-01"}`))
	var removedAt uint64
	frames(t, c, "the removed plan's card taken out", func(f frame) bool {
		if f.ID == templates.GroupID("sess") {
			t.Fatal("a page that shows the group was sent it whole")
		}
		if f.ID == card && f.HTML == "" {
			removedAt = f.Seq
		}
		return removedAt != 0
	})
	ts.ingest(t, sixPlanUpdate("sess", 1, 2))
	frames(t, c, "the plan's card back", func(f frame) bool {
		if f.ID != card {
			return false
		}
		if f.HTML == "" || f.Seq <= removedAt || f.Parent != templates.GroupCardsID("sess") {
			t.Fatalf("card frame after the removal: %+v (removed at %d)", f, removedAt)
		}
		return true
	})
}

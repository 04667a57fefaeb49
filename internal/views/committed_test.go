package views

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// applyLines applies ACP lines through the plans service, as one post.
func applyLines(t *testing.T, p *Pages, lines ...string) {
	t.Helper()
	var items []plans.Item
	for i, l := range lines {
		msgs, err := acp.DecodeLine([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, m := range msgs {
			items = append(items, plans.Item{Line: i + 1, Msg: m})
		}
	}
	if _, err := p.plans.Apply(context.Background(), plans.NewStream(), items); err != nil {
		t.Fatal(err)
	}
}

func planLine(sid, planID, body string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan_update","plan":%s}}}`,
		sid, strings.Replace(body, "{", fmt.Sprintf(`{"planId":%q,`, planID), 1))
}

// cardMarkup renders what the overview sends for plan planID's card, drawn from committed (nil:
// read back).
func cardMarkup(t *testing.T, p *Pages, sid, planID string, committed *plans.Plan) string {
	t.Helper()
	fs, err := p.overviewCard(context.Background(), sid, planID, committed)
	if err != nil || len(fs) != 1 {
		t.Fatalf("overviewCard: %v, %d fragments", err, len(fs))
	}
	if fs[0].View == nil {
		return "removed " + fs[0].ID
	}
	var b bytes.Buffer
	if err := fs[0].View.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sessionPartMarkup renders what a session's page is sent for part.
func sessionPartMarkup(t *testing.T, p *Pages, part live.Change) string {
	t.Helper()
	fs, err := p.renderSessionPart(context.Background(), part.ID, part)
	if err != nil || len(fs) != 1 {
		t.Fatalf("renderSessionPart: %v, %d fragments", err, len(fs))
	}
	var b bytes.Buffer
	if err := fs[0].View.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCardFromCommitIsTheStoredCard: a card drawn from the plan its commit wrote is the card
// drawn from the plan read back, for every kind drawn so, on the overview and on the session's
// page.
func TestCardFromCommitIsTheStoredCard(t *testing.T) {
	p, _ := newPages(t)
	var committed []*plans.Plan
	p.plans.OnCommit(func(c plans.Committed) { committed = c.Plans })
	for name, body := range map[string]string{
		"items":    `{"type":"items","entries":[{"content":"Read <the> code","priority":"high","status":"completed"},{"content":"Ship \"it\"","priority":"low","status":"in_progress","_meta":{"x":[1, 2]}}]}`,
		"markdown": `{"type":"markdown","content":"# Plan\n\n- [x] one\n- [ ] *two*","_meta":{"a":  "b"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			applyLines(t, p, planLine("s-"+name, "p", body))
			if len(committed) != 1 || !drawnAsCommitted(committed[0], crowdedSessions(committed)) {
				t.Fatalf("the commit's plans %+v are not drawn as committed", committed)
			}
			fromCommit, stored := cardMarkup(t, p, "s-"+name, "p", committed[0]), cardMarkup(t, p, "s-"+name, "p", nil)
			if fromCommit != stored {
				t.Errorf("the card drawn from the commit differs from the stored plan's:\n%s\n%s", fromCommit, stored)
			}
			part := live.Change{Kind: changeSession, ID: "s-" + name, Part: partPlan + "p"}
			stored = sessionPartMarkup(t, p, part)
			part.Data = committed[0]
			if fromCommit := sessionPartMarkup(t, p, part); fromCommit != stored {
				t.Errorf("the session page's card drawn from the commit differs from the stored plan's:\n%s\n%s", fromCommit, stored)
			}
		})
	}
}

// TestDrawnAsCommitted: the plans drawn as committed are those the commit proves are among
// their group's cards, of kinds drawn from the plan alone.
func TestDrawnAsCommitted(t *testing.T) {
	var revised []*plans.Plan
	for i := range templates.MaxGroupPlans + 1 {
		revised = append(revised, &plans.Plan{SessionID: "crowded", ID: fmt.Sprint(i), Kind: plans.KindItems})
	}
	for i := range templates.MaxGroupPlans {
		revised = append(revised, &plans.Plan{SessionID: "full", ID: fmt.Sprint(i), Kind: plans.KindMarkdown})
	}
	revised = append(revised,
		&plans.Plan{SessionID: "full", ID: "gone", Kind: plans.KindItems, Removed: true},
		&plans.Plan{SessionID: "other", ID: "dag", Kind: plans.KindDAG},
		&plans.Plan{SessionID: "other", ID: "file", Kind: plans.KindFile},
		&plans.Plan{SessionID: "other", ID: "custom", Kind: plans.KindCustom})
	crowded := crowdedSessions(revised)
	drawn := map[string]int{}
	for _, pl := range revised {
		if drawnAsCommitted(pl, crowded) {
			drawn[pl.SessionID+"/"+string(pl.Kind)]++
		}
	}
	if want := map[string]int{"full/markdown": templates.MaxGroupPlans}; !maps.Equal(drawn, want) {
		t.Errorf("drawn as committed: %v, want %v", drawn, want)
	}
	if crowdedSessions(revised[:templates.MaxGroupPlans]) != nil {
		t.Error("a commit of no more plans than a group shows crowds a session")
	}
}

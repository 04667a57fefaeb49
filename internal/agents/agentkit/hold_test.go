package agentkit_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
)

var holding = agentkit.Holding{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Hook: "some hook", Agent: "Some Agent", Stopped: "the hook stopped waiting"}

func submission(id, session string) approval.Submission {
	return approval.Submission{ID: id, SessionID: session, Agent: "Some Agent", Title: "a plan",
		Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "do it"}, Timeout: approval.Duration(time.Hour), Default: approval.Reject}
}

func TestHoldDecided(t *testing.T) {
	g := agenttest.Gate(t)
	go func() {
		for {
			if _, err := g.Decide(t.Context(), "r1", approval.DecisionInput{Action: approval.Approve, By: "me"}); err == nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	r, err := holding.Hold(t.Context(), g, submission("r1", "s1"))
	if err != nil || r.Status != approval.Approved {
		t.Fatalf("Hold = %v, %v; want approved", r.Status, err)
	}
}

func TestHoldHookGaveUp(t *testing.T) {
	g := agenttest.Gate(t)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := holding.Hold(ctx, g, submission("r1", "s1")); err == nil {
		t.Fatal("Hold returned no error when the hook gave up")
	}
	r, err := g.Get(t.Context(), "r1")
	if err != nil || r.Status != approval.Elsewhere {
		t.Fatalf("the request = %v, %v; want handed to the terminal", r.Status, err)
	}
}

func TestCloseStale(t *testing.T) {
	g := agenttest.Gate(t)
	for _, s := range []approval.Submission{submission("r1", "s1"), submission("r2", "s2"), submission("r3", "s1")} {
		if _, _, err := g.Submit(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	other := submission("r4", "s1")
	other.Agent = "Another Agent"
	if _, _, err := g.Submit(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Decide(t.Context(), "r3", approval.DecisionInput{Action: approval.Approve, By: "me"}); err != nil {
		t.Fatal(err)
	}
	holding.CloseStale(t.Context(), g, "s1")
	want := map[string]approval.Status{"r1": approval.Rejected, "r2": approval.Pending, "r3": approval.Approved, "r4": approval.Pending}
	for id, st := range want {
		r, err := g.Get(t.Context(), id)
		if err != nil || r.Status != st {
			t.Errorf("%s = %v, %v; want %v", id, r.Status, err, st)
		}
	}
	if r, _ := g.Get(t.Context(), "r1"); r.Decision == nil || r.Decision.By != agentkit.TerminalDecider ||
		r.Decision.Comment != "the turn ended; plandash's answer no longer reaches Some Agent" {
		t.Errorf("r1's decision = %+v", r.Decision)
	}
}

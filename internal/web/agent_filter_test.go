package web

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// The overview's and the audit's ?agent= filters match agents by canonical id (agentid), not by
// the spelling stored: Claude Code's hooks and its ACP adapter are one agent, whichever name the
// link uses, and the menu offers it once, under its display name.
func TestAgentFiltersMatchByID(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	now := time.Now()
	c := &plans.Changes{}
	for _, s := range []struct{ id, agent, title string }{
		{"s-hook", "claude-code", "Claude Code"}, {"s-acp", "claude-agent-acp", ""}, {"s-codex", "codex", ""},
	} {
		c.Sessions = append(c.Sessions, &plans.Session{ID: s.id, Agent: s.agent, AgentTitle: s.title, FirstSeen: now, LastSeen: now})
		c.Plans = append(c.Plans, &plans.Plan{SessionID: s.id, ID: "p", Kind: plans.KindItems, Type: "items", Revision: 1, Created: now, Updated: now,
			Entries: []plans.Entry{{Content: "a", Priority: "medium", Status: plans.StatusPending}}})
	}
	if err := ts.store.Commit(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Claude%20Code", "claude-code", "claude-agent-acp"} {
		_, doc := ts.page(t, "/?agent="+q)
		var got []string
		for _, g := range all(doc, `[data-testid=session-group]`) {
			got = append(got, attr(g, "data-session-id"))
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"s-acp", "s-hook"}) {
			t.Errorf("?agent=%s lists %q, want both of Claude Code's sessions", q, got)
		}
		sel := all(doc, `[data-testid=filter-agent] option[selected]`)
		if len(sel) != 1 || attr(sel[0], "value") != "claude-code" || text(sel[0]) != "Claude Code" {
			t.Errorf("?agent=%s: the menu's choice is not Claude Code (%d selected)", q, len(sel))
		}
	}
	_, doc := ts.page(t, "/")
	var offered []string
	for _, o := range all(doc, `[data-testid=filter-agent] option`) {
		offered = append(offered, attr(o, "value")+"="+text(o))
	}
	if !slices.Equal(offered, []string{"=any", "claude-code=Claude Code", "codex=Codex"}) {
		t.Errorf("the agent menu offers %q", offered)
	}

	ts.create(t, `{"title":"From the hook","agent":"Claude Code","plan":{"type":"markdown","markdown":"# a"}}`)
	ts.create(t, `{"title":"From the adapter","agent":"claude-agent-acp","plan":{"type":"markdown","markdown":"# b"}}`)
	ts.create(t, `{"title":"From Codex","agent":"codex","plan":{"type":"markdown","markdown":"# c"}}`)
	_, doc = ts.page(t, "/approvals/audit?agent=claude-code")
	if n := len(all(doc, `[data-testid=audit-row]`)); n != 2 {
		t.Errorf("the audit for claude-code has %d rows, want Claude Code's 2", n)
	}
}

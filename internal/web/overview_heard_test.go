package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// The overview says, per agent, when plandash last heard from it: newest first, each agent once
// (at its most recent session), its label, a live relative time, at most MaxHeardFrom agents.
func TestOverviewHeardFrom(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	now := time.Now()
	c := &plans.Changes{}
	add := func(id, agent, title string, ago time.Duration) {
		at := now.Add(-ago)
		c.Sessions = append(c.Sessions, &plans.Session{ID: id, Agent: agent, AgentTitle: title, FirstSeen: at, LastSeen: at})
	}
	add("s-claude-old", "claude-code", "Claude Code", 5*time.Hour)
	add("s-claude-new", "claude-code", "Claude Code", 2*time.Minute)
	add("s-codex", "codex", "", 3*time.Hour)
	// Claude Code through the ACP adapter is the same agent as through its hooks: one line.
	add("s-claude-acp", "claude-agent-acp", "Claude Code (plan mode)", time.Minute)
	for i := range templates.MaxHeardFrom {
		add(fmt.Sprintf("s-old-%d", i), fmt.Sprintf("agent-%02d", i), "", time.Duration(100+i)*time.Hour)
	}
	if err := ts.store.Commit(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	_, doc := ts.page(t, "/")
	line := all(doc, `[data-testid=heard-from]`)
	if len(line) != 1 || !strings.HasPrefix(strings.TrimSpace(text(line[0])), "Heard from:") {
		t.Fatalf("%d heard-from lines", len(line))
	}
	got := all(doc, `[data-testid=heard-from] [data-testid=heard-agent]`)
	if len(got) != templates.MaxHeardFrom {
		t.Fatalf("%d agents listed, want the %d heard from most recently", len(got), templates.MaxHeardFrom)
	}
	want := []struct{ key, name, ago string }{{"claude-code", "Claude Code", "1m ago"}, {"codex", "Codex", "3h ago"}, {"agent-00", "agent-00", ""}}
	for i, w := range want {
		times := all(got[i], `time[data-rel]`)
		if attr(got[i], "data-agent") != w.key || !strings.HasPrefix(text(got[i]), w.name+" ") || len(times) != 1 {
			t.Fatalf("agent %d: %q %q, want %s", i, attr(got[i], "data-agent"), text(got[i]), w.key)
		}
		if w.ago != "" && text(times[0]) != w.ago {
			t.Errorf("%s: heard from %q, want %q", w.key, text(times[0]), w.ago)
		}
	}
	if attr(all(got[0], `time`)[0], "datetime") != now.Add(-time.Minute).UTC().Format(time.RFC3339) {
		t.Error("Claude Code's time is not its newest session's")
	}
	if last := attr(got[len(got)-1], "data-agent"); last != fmt.Sprintf("agent-%02d", templates.MaxHeardFrom-3) {
		t.Errorf("last listed is %s: not the newest first", last)
	}
}

// A store with no sessions has no "Heard from" line: the empty state says how to connect.
func TestOverviewHeardFromEmpty(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	if _, doc := ts.page(t, "/"); len(all(doc, `[data-testid=heard-from]`)) != 0 {
		t.Fatal("an empty overview says it heard from someone")
	}
}

package web

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
)

// An auto-approve rule may be limited to a machine and a working directory (and below): the
// form suggests those plandash has seen, and the rule approves only requests whose session ran
// there.
func TestRuleLimitedToMachineAndDirectory(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	now := time.Now()
	c := &plans.Changes{}
	for _, s := range []struct{ id, host, cwd string }{
		{"s-here", "devbox", "/home/ann/src/plandash"},
		{"s-sub", "devbox", "/home/ann/src/plandash/web"},
		{"s-other-dir", "devbox", "/home/ann/src/plan"},
		{"s-ci", "ci-runner", "/home/ann/src/plandash"},
	} {
		c.Sessions = append(c.Sessions, &plans.Session{ID: s.id, Agent: "claude-code", Host: s.host, Cwd: s.cwd, FirstSeen: now, LastSeen: now})
	}
	if err := ts.store.Commit(context.Background(), c); err != nil {
		t.Fatal(err)
	}

	_, doc := ts.page(t, "/approvals")
	var machines, dirs []string
	for _, o := range all(doc, `[data-testid=rule-machine-option]`) {
		machines = append(machines, attr(o, "value"))
	}
	for _, o := range all(doc, `[data-testid=rule-dir-option]`) {
		dirs = append(dirs, attr(o, "value"))
	}
	if !slices.Contains(machines, "devbox") || !slices.Contains(machines, "ci-runner") || !slices.Contains(dirs, "/home/ann/src/plandash") {
		t.Errorf("the form suggests machines %q and directories %q", machines, dirs)
	}
	if len(all(doc, `[data-testid=rule-form] [data-testid=rule-machine]`)) != 1 || len(all(doc, `[data-testid=rule-form] [data-testid=rule-cwd]`)) != 1 {
		t.Fatal("the rule form has no machine or directory field")
	}

	resp := ts.form(t, "/approvals/rules", url.Values{"agent": {"claude-code"}, "machine": {"DevBox"}, "cwd": {"/home/ann/src/plandash"}})
	if resp.StatusCode != 303 {
		t.Fatalf("add rule: %d", resp.StatusCode)
	}
	_, doc = ts.page(t, "/approvals")
	if got := text(one(t, doc, `[data-testid=rule] .rule-what`)); got != `agent "claude-code", machine "DevBox", directory "/home/ann/src/plandash" and below` {
		t.Errorf("the rule reads %q", got)
	}
	for session, want := range map[string]approval.Status{
		"s-here": approval.Approved, "s-sub": approval.Approved,
		"s-other-dir": approval.Pending, "s-ci": approval.Pending, "s-never-seen": approval.Pending,
	} {
		r := ts.create(t, `{"title":"Plan in `+session+`","agent":"Claude Code","sessionId":"`+session+`","plan":{"type":"markdown","markdown":"# P"}}`)
		if r.Status != want {
			t.Errorf("a request from %s is %s, want %s", session, r.Status, want)
		}
	}
}

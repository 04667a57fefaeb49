package web

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
)

// A request answered in the terminal (Claude Code stopped the gate's hook) says so everywhere,
// outcome not known yet, and no page offers to decide it: an answer given there would not
// reach the agent. The agent's next event settles it, and the pages say the outcome.
func TestAnsweredInTheTerminalIsNoLongerDecidedHere(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	now := time.Now()
	if err := ts.store.Commit(context.Background(), &plans.Changes{
		Sessions: []*plans.Session{{ID: "claude-s1", Agent: "claude-code", FirstSeen: now, LastSeen: now}},
		Plans:    []*plans.Plan{{SessionID: "claude-s1", ID: "p", Kind: plans.KindMarkdown, Type: "markdown", Markdown: "# Parse it", Revision: 1, Created: now, Updated: now}},
	}); err != nil {
		t.Fatal(err)
	}
	r := ts.create(t, `{"title":"Parse it","agent":"Claude Code","sessionId":"claude-s1","then":"the terminal decides","plan":{"type":"markdown","markdown":"# Parse it"}}`)
	note := "answered in the terminal — outcome not known yet"
	if _, err := ts.srv.gate.HandOver(t.Context(), r.ID, "terminal", note); err != nil {
		t.Fatal(err)
	}

	_, doc := ts.page(t, "/approvals/"+r.ID)
	if n := len(all(doc, `[data-testid=decide-form]`)); n != 0 {
		t.Fatalf("the request page offers a decision (%d forms)", n)
	}
	if got := text(one(t, doc, `[data-testid=approval-panel][data-status=elsewhere] [data-testid=decision-status]`)); got != note {
		t.Errorf("the panel says %q, want %q", got, note)
	}
	if got := text(one(t, doc, `[data-testid=approval-elsewhere]`)); got != note {
		t.Errorf("the facts say %q", got)
	}

	_, doc = ts.page(t, "/approvals")
	if n := len(all(doc, `[data-testid=approval-row]`)); n != 0 {
		t.Errorf("the inbox lists it as waiting for a decision (%d rows)", n)
	}
	if got := text(one(t, doc, `[data-testid=decided-row][data-status=elsewhere] [data-testid=decided-status]`)); got != note {
		t.Errorf("the inbox's row says %q", got)
	}

	// A decision sent anyway (a page opened before) is refused, saying why.
	resp := ts.form(t, "/approvals/"+r.ID+"/decide", url.Values{"action": {"reject"}, "comment": {"no"}})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 409 || !strings.Contains(string(body), "answered in the terminal") {
		t.Errorf("a late decision: %d, want 409 saying it was answered in the terminal", resp.StatusCode)
	}

	code, raw := ts.api(t, "GET", "/api/v1/waits", nil)
	var l waits.List
	if err := json.Unmarshal(raw, &l); code != 200 || err != nil || len(l.Waits) != 1 {
		t.Fatalf("waits: %d %s", code, raw)
	}
	if w := l.Waits[0]; w.Answered != note || w.Answerable || len(w.Actions) != 0 || w.ID != waits.PlanID(r.ID) {
		t.Errorf("the wait: %+v; want answered, not answerable, no actions", w)
	}
	code, raw = ts.api(t, "GET", "/api/v1/approvals/count", nil)
	var count struct{ Pending int }
	if err := json.Unmarshal(raw, &count); code != 200 || err != nil || count.Pending != 0 {
		t.Errorf("the count: %d %s; want 0: nobody waits on a person", code, raw)
	}

	_, doc = ts.page(t, "/")
	if got := text(one(t, doc, `[data-testid=needs-you-item] [data-testid=needs-you-answered]`)); got != note {
		t.Errorf("the Needs you strip says %q", got)
	}
	if got := attr(one(t, doc, `[data-testid=needs-you-count]`), "data-count"); got != "0" {
		t.Errorf("the strip counts %s waiting", got)
	}

	// Its session does not say it waits for you.
	if got := attr(one(t, doc, `[data-testid=session-group][data-session-id=claude-s1]`), "data-waiting"); got != "0" {
		t.Errorf("the session's group says %s wait for you", got)
	}

	_, doc = ts.page(t, "/approvals/audit")
	if got := text(one(t, doc, `[data-testid=audit-row][data-event=elsewhere] .outcome`)); got != note {
		t.Errorf("the audit says %q", got)
	}

	if _, err := ts.srv.gate.Settle(t.Context(), r.ID, approval.DecisionInput{Action: approval.Approve, By: "terminal",
		Comment: "answered in the terminal — approved: Claude Code went ahead with the plan"}); err != nil {
		t.Fatal(err)
	}
	_, doc = ts.page(t, "/approvals/"+r.ID)
	if got := text(one(t, doc, `[data-testid=approval-panel][data-status=approved] [data-testid=decision-by]`)); got != "terminal" {
		t.Errorf("settled: decided by %q", got)
	}
	code, raw = ts.api(t, "GET", "/api/v1/waits", nil)
	if err := json.Unmarshal(raw, &l); code != 200 || err != nil || len(l.Waits) != 0 {
		t.Errorf("waits after the outcome: %s", raw)
	}
}

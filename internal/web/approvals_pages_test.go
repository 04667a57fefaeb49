package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/approval"
	"golang.org/x/net/html"
)

func parse(t *testing.T, resp *http.Response) *html.Node {
	t.Helper()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestApprovalInboxPage(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	first := ts.create(t, checklist)
	second := ts.create(t, `{"title":"Write the docs","plan":{"type":"markdown","content":"# Docs\n- API"}}`)
	done := ts.create(t, `{"title":"Old one","plan":{"entries":[{"content":"x"}]}}`)
	if code, raw := ts.api(t, "POST", "/api/v1/approvals/"+done.ID+"/decision", `{"action":"reject","comment":"stale"}`); code != 200 {
		t.Fatalf("decide: %d %s", code, raw)
	}
	code, doc := ts.page(t, "/approvals")
	if code != 200 {
		t.Fatalf("inbox: %d", code)
	}
	rows := all(doc, `[data-testid=approvals-pending] [data-testid=approval-row]`)
	if len(rows) != 2 || attr(rows[0], "data-id") != first.ID || attr(rows[1], "data-id") != second.ID {
		t.Fatalf("pending rows are not oldest first: %d rows", len(rows))
	}
	if cd := all(rows[0], `[data-testid=countdown] time[data-deadline]`); len(cd) != 1 || !strings.Contains(text(rows[0]), "left, then rejected") {
		t.Fatalf("row has no deadline countdown: %s", text(rows[0]))
	}
	decided := all(doc, `[data-testid=approvals-decided] [data-testid=decided-row]`)
	if len(decided) != 1 || attr(decided[0], "data-status") != "rejected" || !strings.Contains(text(decided[0]), "stale") {
		t.Fatalf("decided rows = %d", len(decided))
	}
	if title := text(all(doc, "title")[0]); !strings.HasPrefix(title, "[2] ") {
		t.Fatalf("title = %q", title)
	}

	// The plan view draws the plan as the dashboard does, with the three actions.
	_, doc = ts.page(t, "/approvals/"+first.ID)
	if n := len(all(doc, `[data-testid=plan-card] [data-testid=plan-entry]`)); n != 3 {
		t.Fatalf("plan card has %d entries", n)
	}
	for _, id := range []string{"approve", "modify", "reject", "editor", "decide-comment"} {
		if len(all(doc, `[data-testid=approval-panel] [data-testid=`+id+`]`)) != 1 {
			t.Fatalf("plan view has no %s", id)
		}
	}
	if n := len(all(doc, `[data-testid=editor-rows] [data-testid=editor-row] input[name=content]`)); n != 3 {
		t.Fatalf("editor has %d rows", n)
	}
	if attr(all(doc, `[data-testid=approval-nav]`)[0], "data-next") != second.ID {
		t.Fatal("j does not lead to the next pending request")
	}
	if code, _ := ts.page(t, "/approvals/nope"); code != 404 {
		t.Fatalf("unknown request page: %d", code)
	}
}

func TestApprovalPageForms(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ts.page(t, "/approvals") // signs in
	r := ts.create(t, checklist)
	path := "/approvals/" + r.ID + "/decide"

	// A modification that empties an entry is refused; the form says why and keeps the edit.
	bad := url.Values{"action": {"modify"}, "comment": {"keep"},
		"content": {"Run the tests", ""}, "priority": {"high", "low"}, "status": {"pending", "pending"}}
	resp := ts.form(t, path, bad)
	doc := parse(t, resp)
	notice := all(doc, `[data-testid=notice]`)
	if resp.StatusCode != 400 || len(notice) != 1 || !strings.Contains(text(notice[0]), "entry 2 has no text") {
		t.Fatalf("invalid modification: %d", resp.StatusCode)
	}
	if rows := all(doc, `[data-testid=editor-rows] [data-testid=editor-row] input[name=content]`); len(rows) != 2 || attr(rows[0], "value") != "Run the tests" {
		t.Fatalf("the refused edit is not shown again: %d rows", len(rows))
	}
	if len(all(doc, `details[data-testid=editor][open]`)) != 1 || text(all(doc, `[data-testid=decide-comment]`)[0]) != "keep" {
		t.Fatal("the editor is closed or the comment lost after a refusal")
	}

	good := url.Values{"action": {"modify"}, "key": {"k1"},
		"content": {"Run the tests", "Read the code", "Ship"}, "priority": {"high", "high", "low"}, "status": {"pending", "pending", "pending"}}
	if resp := ts.form(t, path, good); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/approvals/"+r.ID {
		t.Fatalf("modification: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The same form sent twice (a double click) is the same decision, not a conflict.
	if resp := ts.form(t, path, good); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("repeated form: %d", resp.StatusCode)
	}
	got, _ := ts.srv.gate.Get(t.Context(), r.ID)
	if got.Status != approval.Modified || got.Decision.By != "ann" || len(got.Decision.Plan.Entries) != 3 || got.Decision.Plan.Entries[2].Content != "Ship" {
		t.Fatalf("decision = %+v", got.Decision)
	}
	// Another viewer's stale form loses: 409 and the page says who decided.
	resp = ts.form(t, path, url.Values{"action": {"reject"}, "comment": {"no"}, "key": {"k2"}})
	doc = parse(t, resp)
	notice = all(doc, `[data-testid=notice]`)
	if resp.StatusCode != 409 || len(notice) != 1 || !strings.Contains(text(notice[0]), "ann modified it first") {
		t.Fatalf("stale form: %d", resp.StatusCode)
	}
	if len(all(doc, `[data-testid=decide-form]`)) != 0 || len(all(doc, `[data-testid=decision-diff] [data-op="+"]`)) == 0 {
		t.Fatal("the decided page still offers the form, or shows no diff")
	}

	// Quick approval from the inbox goes back to the inbox.
	q := ts.create(t, checklist)
	resp = ts.form(t, "/approvals/"+q.ID+"/decide", url.Values{"action": {"approve"}, "back": {"inbox"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/approvals" {
		t.Fatalf("quick approval: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Rules are added and revoked from the inbox.
	if resp := ts.form(t, "/approvals/rules", url.Values{"agent": {"bot"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add rule: %d", resp.StatusCode)
	}
	_, doc = ts.page(t, "/approvals")
	rules := all(doc, `[data-testid=rule]`)
	if len(rules) != 1 {
		t.Fatalf("%d rules shown", len(rules))
	}
	if resp := ts.form(t, "/approvals/rules/"+attr(rules[0], "data-rule-id")+"/revoke", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	_, doc = ts.page(t, "/approvals/audit?agent=bot")
	if rows := all(doc, `[data-testid=audit-row]`); len(rows) != 2 || attr(rows[0], "data-event") != "rule-revoked" {
		t.Fatalf("audit page for the bot has %d rows", len(rows))
	}
}

func TestApprovalSocket(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	auth := &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}}}
	base := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws?since=0&topic="
	inbox, _, err := websocket.Dial(ctx, base+"approvals", auth)
	if err != nil {
		t.Fatal(err)
	}
	defer inbox.CloseNow()
	overview, _, err := websocket.Dial(ctx, base+"all", auth)
	if err != nil {
		t.Fatal(err)
	}
	defer overview.CloseNow()
	// Frames of a catch-up and of the hub may interleave when a change races a connection:
	// until reads on to the frame for id.
	until := func(c *websocket.Conn, id string) frame {
		t.Helper()
		for {
			_, b, err := c.Read(ctx)
			var f frame
			if err != nil || json.Unmarshal(b, &f) != nil {
				t.Fatalf("waiting for %s: %v %s", id, err, b)
			}
			if f.ID == id {
				return f
			}
		}
	}
	// Every page, whatever its topic, is sent the count, numbered in the one live sequence.
	r := ts.create(t, checklist)
	if f := until(overview, "pending-count"); f.Seq == 0 || !strings.Contains(f.HTML, `data-count="1"`) || !strings.Contains(f.HTML, "Refactor the parser") {
		t.Fatalf("overview count after a request = %+v", f)
	}
	// Pages fetch it when their socket goes live.
	if code, raw := ts.api(t, "GET", "/api/v1/approvals/count", nil); code != 200 || !strings.Contains(string(raw), `"pending": 1`) {
		t.Fatalf("count: %d %s", code, raw)
	}
	if f := until(inbox, "ap-"+r.ID); f.Parent != "approvals-pending" || !strings.Contains(f.HTML, "Refactor the parser") {
		t.Fatalf("inbox row = %+v", f)
	}
	page, _, err := websocket.Dial(ctx, base+"approval:"+r.ID, auth)
	if err != nil {
		t.Fatal(err)
	}
	defer page.CloseNow()
	ts.api(t, "POST", "/api/v1/approvals/"+r.ID+"/decision", `{"action":"approve"}`)
	if f := until(inbox, "ap-"+r.ID); f.HTML != "" {
		t.Fatalf("pending row not removed: %+v", f)
	}
	if f := until(inbox, "ad-"+r.ID); f.Parent != "approvals-decided" {
		t.Fatalf("decided row = %+v", f)
	}
	// The page may first be sent its pending panel (catching up from since=0).
	f := until(page, "ax-"+r.ID)
	if strings.Contains(f.HTML, "decide-form") {
		f = until(page, "ax-"+r.ID)
	}
	if !strings.Contains(f.HTML, `data-status="approved"`) || strings.Contains(f.HTML, "decide-form") {
		t.Fatalf("panel = %+v", f)
	}
}

// TestApprovalExpiresLive: the deadline loop applies the default outcome with nobody waiting,
// and the inbox shows it without a reload.
func TestApprovalExpiresLive(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go ts.srv.gate.Run(ctx)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?topic=approvals", &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	r := ts.create(t, `{"title":"Quick one","timeout":"1s","plan":{"entries":[{"content":"x"}]}}`)
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("no expiry on the socket: %v", err)
		}
		var f frame
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if f.ID == "ad-"+r.ID {
			if !strings.Contains(f.HTML, `data-status="rejected"`) || !strings.Contains(f.HTML, "the deadline") {
				t.Fatalf("expired row = %s", f.HTML)
			}
			break
		}
	}
	got, _ := ts.srv.gate.Get(ctx, r.ID)
	if !got.Decision.Expired || got.Status != approval.Rejected {
		t.Fatalf("stored: %+v", got.Decision)
	}
}

package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
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
	if title := text(all(doc, "title")[0]); !strings.HasPrefix(title, "2 waiting — ") {
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
	if n := len(outsideTemplates(all(doc, `[data-testid=editor-rows] [data-testid=editor-row] textarea[name=content]`))); n != 3 {
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
	_, rdoc := ts.page(t, "/approvals/"+r.ID)
	seen := attr(all(rdoc, `[data-testid=plan-shown]`)[0], "data-seen")

	// A modification that empties an entry is refused; the form says why and keeps the edit.
	bad := url.Values{"action": {"modify"}, "comment": {"keep"},
		"content": {"Run the tests", ""}, "priority": {"high", "low"}, "status": {"pending", "pending"}}
	resp := ts.form(t, path, bad)
	doc := parse(t, resp)
	notice := all(doc, `[data-testid=notice]`)
	if resp.StatusCode != 400 || len(notice) != 1 || !strings.Contains(text(notice[0]), "entry 2 has no text") {
		t.Fatalf("invalid modification: %d", resp.StatusCode)
	}
	if rows := outsideTemplates(all(doc, `[data-testid=editor-rows] [data-testid=editor-row] textarea[name=content]`)); len(rows) != 2 || text(rows[0]) != "Run the tests" {
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
	if len(all(doc, `[data-testid=decide-form]`)) != 0 || len(all(doc, `[data-testid=decision-diff] [data-testid=diff-change][data-op=added]`)) == 0 {
		t.Fatal("the decided page still offers the form, or shows no diff")
	}

	// Quick approval from the inbox needs the proof that the plan was shown, which only the
	// request's page (the plan beside it) carries; then it goes back to the inbox.
	q := ts.create(t, checklist)
	for _, tc := range []struct {
		name string
		seen string
		code int
	}{
		{"no proof", "", http.StatusBadRequest},
		{"another request's proof", seen, http.StatusBadRequest},
		{"a made-up proof", "00112233445566778899aabbccddeeff", http.StatusBadRequest},
	} {
		resp = ts.form(t, "/approvals/"+q.ID+"/decide", url.Values{"action": {"approve"}, "back": {"inbox"}, "seen": {tc.seen}})
		doc = parse(t, resp)
		if resp.StatusCode != tc.code || len(all(doc, `[data-testid=notice]`)) != 1 || len(all(doc, `[data-testid=approvals-inbox]`)) != 1 {
			t.Fatalf("quick approval with %s: %d, want %d and the inbox with a notice", tc.name, resp.StatusCode, tc.code)
		}
	}
	_, qdoc := ts.page(t, "/approvals/"+q.ID)
	resp = ts.form(t, "/approvals/"+q.ID+"/decide", url.Values{"action": {"approve"}, "back": {"inbox"}, "seen": {attr(all(qdoc, `[data-testid=plan-shown]`)[0], "data-seen")}})
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
			if err != nil {
				t.Fatalf("waiting for %s: %v %s", id, err, b)
			}
			f := decodeFrame(t, c, b)
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
		f := decodeFrame(t, c, b)
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

// outsideTemplates drops the nodes inside a <template>: a browser does not show them (the page
// keeps the plan as submitted in one, for "Discard changes").
func outsideTemplates(nodes []*html.Node) []*html.Node {
	var out []*html.Node
next:
	for _, n := range nodes {
		for p := n.Parent; p != nil; p = p.Parent {
			if p.Type == html.ElementNode && p.Data == "template" {
				continue next
			}
		}
		out = append(out, n)
	}
	return out
}

// A plain approval from a form whose editor holds changes is refused with the changes kept, and
// the page then offers "Approve with changes" instead of Approve; an untouched editor approves.
func TestApprovalPageRefusesEditedApprove(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ts.page(t, "/approvals") // signs in
	for _, tc := range []struct {
		name   string
		plan   string
		fields url.Values // the editor's fields as a browser posts them
		edited bool
	}{
		{"checklist untouched", checklist, items([]string{"Read the code ", "Change it", "Run the tests"}, []string{"high", "medium", "low"}), false},
		{"checklist entry changed", checklist, items([]string{"Read the code twice", "Change it", "Run the tests"}, []string{"high", "medium", "low"}), true},
		{"checklist priority changed", checklist, items([]string{"Read the code", "Change it", "Run the tests"}, []string{"high", "medium", "high"}), true},
		{"checklist entry added", checklist, items([]string{"Read the code", "Change it", "Run the tests", "Ship"}, []string{"high", "medium", "low", "low"}), true},
		{"checklist entry removed", checklist, items([]string{"Read the code", "Change it"}, []string{"high", "medium"}), true},
		{"checklist reordered", checklist, items([]string{"Change it", "Read the code", "Run the tests"}, []string{"medium", "high", "low"}), true},
		{"markdown untouched (CRLF)", `{"title":"Docs","plan":{"type":"markdown","content":"# Docs\n- API"}}`, url.Values{"markdown": {"# Docs\r\n- API"}}, false},
		{"markdown changed", `{"title":"Docs","plan":{"type":"markdown","content":"# Docs\n- API"}}`, url.Values{"markdown": {"# Docs\r\n- API\r\n- CLI"}}, true},
		{"tool calls re-indented", `{"title":"Calls","plan":{"type":"dag","calls":[{"_tool":"read_file","_id":"a","path":"go.mod"}]}}`, url.Values{"calls": {"[\n  {\"_id\": \"a\", \"_tool\": \"read_file\", \"path\": \"go.mod\"}\n]"}}, false},
		{"tool calls changed", `{"title":"Calls","plan":{"type":"dag","calls":[{"_tool":"read_file","_id":"a","path":"go.mod"}]}}`, url.Values{"calls": {`[{"_id":"a","_tool":"read_file","path":"go.sum"}]`}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.create(t, tc.plan)
			_, doc := ts.page(t, "/approvals/"+r.ID)
			form := url.Values{"action": {"approve"}, "key": {"k-" + r.ID}, "seen": {attr(all(doc, `[data-testid=plan-shown]`)[0], "data-seen")}}
			for k, v := range tc.fields {
				form[k] = v
			}
			resp := ts.form(t, "/approvals/"+r.ID+"/decide", form)
			if !tc.edited {
				if resp.StatusCode != http.StatusSeeOther {
					t.Fatalf("untouched editor: %d, want 303", resp.StatusCode)
				}
				return
			}
			doc = parse(t, resp)
			if resp.StatusCode != http.StatusConflict || len(all(doc, `[data-testid=notice]`)) != 1 {
				t.Fatalf("edited editor: %d, want 409 with a notice", resp.StatusCode)
			}
			if len(all(doc, `[data-testid=approve][hidden]`)) != 1 || len(all(doc, `[data-testid=approve-changes]:not([hidden])`)) != 1 ||
				len(all(doc, `[data-testid=discard-changes]:not([hidden])`)) != 1 || len(all(doc, `template#ed-original`)) != 1 {
				t.Fatal("the refused page does not offer approving the changes, or discarding them")
			}
			if _, raw := ts.api(t, "GET", "/api/v1/approvals/"+r.ID, nil); !strings.Contains(string(raw), `"status": "pending"`) && !strings.Contains(string(raw), `"status":"pending"`) {
				t.Fatalf("the request was decided: %s", raw)
			}
		})
	}
}

// items is a checklist editor's fields, every entry pending.
func items(content, priority []string) url.Values {
	status := make([]string, len(content))
	for i := range status {
		status[i] = "pending"
	}
	return url.Values{"content": content, "priority": priority, "status": status}
}

// An audit row for a request nobody decided in time says the outcome its deadline applied, not
// only "expired".
func TestAuditSaysTheOutcomeADeadlineApplied(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts := newTestServer(t, testConfig{Now: clock})
	var ids []string
	for _, def := range []string{"reject", "approve"} {
		r := ts.create(t, `{"title":"Runs out of time (`+def+`)","agent":"bot-`+def+`","timeout":"1m","default":"`+def+`","plan":{"type":"items","entries":[{"content":"a","priority":"high","status":"pending"}]}}`)
		ids = append(ids, r.ID)
	}
	// An agent whose own dialog decides past the deadline says so, and the pages say it too.
	term := ts.create(t, `{"title":"The terminal's call","agent":"bot-terminal","timeout":"1m","then":"the terminal decides","plan":{"type":"items","entries":[{"content":"a","priority":"high","status":"pending"}]}}`)
	ids = append(ids, term.ID)
	_, doc := ts.page(t, "/approvals/"+term.ID)
	if got := text(one(t, doc, `[data-testid=deadline-then]`)); got != "left, then the terminal decides" {
		t.Errorf("the deadline of a request the terminal decides reads %q", got)
	}
	_, doc = ts.page(t, "/approvals")
	if got := text(one(t, doc, `[data-testid=approval-row][data-id=`+term.ID+`] [data-testid=deadline-then]`)); got != "left, then the terminal decides" {
		t.Errorf("in the inbox, the deadline of a request the terminal decides reads %q", got)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	for _, id := range ids {
		ts.api(t, "GET", "/api/v1/approvals/"+id, nil) // reading a request past its deadline applies the default
	}
	// The terminal's request is not recorded as the default: the terminal has it, its outcome
	// not known yet.
	for def, want := range map[string]string{"reject": "expired: rejected", "approve": "expired: approved", "terminal": "expired: the terminal decides — outcome not known yet"} {
		_, doc := ts.page(t, "/approvals/audit?agent=bot-"+def)
		event := "expired"
		if def == "terminal" {
			event = "elsewhere"
		}
		var got []string
		for _, row := range all(doc, `[data-testid=audit-row][data-event=`+event+`]`) {
			got = append(got, text(one(t, row, ".outcome")))
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("the audit of an expired request with default %s says %q, want %q", def, got, want)
		}
	}
}

// A request names its session: the page links there only when plandash has seen that session
// (else the link was a 404), and the session's page lists what the gate decided on it.
func TestApprovalAndSessionLinkEachOther(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	unseen := ts.create(t, `{"title":"From nowhere","sessionId":"never-seen","plan":{"type":"items","entries":[{"content":"a","priority":"high","status":"pending"}]}}`)
	_, doc := ts.page(t, "/approvals/"+unseen.ID)
	if len(all(doc, `[data-testid=approval-session]`)) != 0 || len(all(doc, `[data-testid=approval-session-unknown]`)) != 1 {
		t.Errorf("a request from a session plandash never saw links to it")
	}

	ts.ingest(t, update("seen-1", planA))
	seen := ts.create(t, `{"title":"Ship it","sessionId":"seen-1","plan":{"type":"items","entries":[{"content":"a","priority":"high","status":"pending"}]}}`)
	_, doc = ts.page(t, "/approvals/"+seen.ID)
	if links := all(doc, `[data-testid=approval-session]`); len(links) != 1 || attr(links[0], "href") != "/sessions/seen-1" {
		t.Errorf("a request from a known session does not link to it")
	}
	if code, _ := ts.api(t, "POST", "/api/v1/approvals/"+seen.ID+"/decision", map[string]string{"action": "reject", "comment": "not yet"}); code != 200 {
		t.Fatalf("decide: %d", code)
	}
	_, doc = ts.page(t, "/sessions/seen-1")
	rows := all(doc, `[data-testid=session-decision]`)
	if len(rows) != 1 || attr(rows[0], "data-event") != "rejected" || !strings.Contains(text(rows[0]), "Ship it") || !strings.Contains(text(rows[0]), "by ann") {
		t.Fatalf("the session page's gate decisions: %d rows", len(rows))
	}
	if l := all(doc, `[data-testid=session-audit-link]`); len(l) != 1 || attr(l[0], "href") != "/approvals/audit?session=seen-1" {
		t.Errorf("no link to the session's audit trail")
	}
}

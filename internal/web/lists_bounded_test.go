package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"golang.org/x/net/html"
)

// maxAnswer is the most any page or API answer may weigh, whatever is stored (issue 11).
const maxAnswer = 2 << 20

// seeded is what seed stored.
type seeded struct {
	busy      string // the session with many tool calls and a plan with a long history
	revisions int
	big       []string // ids of the approval requests with large plans, oldest first
}

// seed stores n sessions, each with a plan, straight through the store in one transaction;
// one busy session with 5,000 tool calls and a plan of 3,000 revisions; 30 pending approval
// requests with 400 KB plans, and their audit events (8 under the race detector, which takes
// seconds to decode each: still four times what one page may hold).
func seed(tb testing.TB, ts *testServer, n int) seeded {
	tb.Helper()
	ctx := context.Background()
	now := time.Now()
	sd := seeded{busy: "busy", revisions: 3000}
	c := &plans.Changes{}
	for i := range n {
		seen := now.Add(-time.Duration(i) * time.Millisecond)
		c.Sessions = append(c.Sessions, &plans.Session{ID: fmt.Sprintf("s%06d", i), Agent: "claude", Cwd: "/work/repo", FirstSeen: seen, LastSeen: seen})
		c.Plans = append(c.Plans, &plans.Plan{SessionID: fmt.Sprintf("s%06d", i), ID: "main", Kind: plans.KindItems, Type: "items", Revision: 1,
			Created: seen, Updated: seen, Entries: []plans.Entry{{Content: "Read the code", Priority: "high", Status: plans.StatusInProgress},
				{Content: "Write the tests", Priority: "medium", Status: plans.StatusPending}}})
	}
	c.Sessions = append(c.Sessions, &plans.Session{ID: sd.busy, Agent: "claude", FirstSeen: now, LastSeen: now})
	p := &plans.Plan{SessionID: sd.busy, ID: "main", Kind: plans.KindItems, Type: "items", Created: now}
	for i := range 40 {
		p.Entries = append(p.Entries, plans.Entry{Content: fmt.Sprintf("Step %d of the work", i), Priority: "medium", Status: plans.StatusPending})
	}
	for i := range sd.revisions {
		p.Revision, p.Updated = i+1, now.Add(time.Duration(i)*time.Millisecond)
		p.Entries = append([]plans.Entry(nil), p.Entries...)
		p.Entries[i%40].Status = []string{plans.StatusInProgress, plans.StatusCompleted}[i%2]
		rev := *p
		c.Revisions = append(c.Revisions, &rev)
	}
	c.Plans = append(c.Plans, p)
	for i := range 5000 {
		c.ToolCalls = append(c.ToolCalls, &plans.ToolCall{SessionID: sd.busy, ID: fmt.Sprintf("call-%05d", i), Title: "Read main.go",
			Status: "completed", Created: now.Add(time.Duration(i) * time.Microsecond), RawInput: json.RawMessage(`{"path":"main.go"}`)})
	}
	if err := ts.db.Plans().Commit(ctx, c); err != nil {
		tb.Fatal(err)
	}
	big := strings.Repeat("x", 400<<10)
	bigOnes := 30
	if raceEnabled {
		bigOnes = 8
	}
	for i := range bigOnes {
		r := approval.Request{ID: fmt.Sprintf("big-%02d", i), Status: approval.Pending, Agent: "claude", SessionID: sd.busy, Title: "Large plan",
			Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: big}, Options: []approval.Action{approval.Approve, approval.Reject},
			Default: approval.Reject, Created: now.Add(time.Duration(i) * time.Second), Deadline: now.Add(time.Hour)}
		ev := []approval.AuditEvent{{At: r.Created, Event: approval.EventRequested, RequestID: r.ID, SessionID: r.SessionID, Agent: r.Agent, Title: r.Title}}
		if _, _, err := ts.db.Approvals().Create(ctx, r, ev); err != nil {
			tb.Fatal(err)
		}
		sd.big = append(sd.big, r.ID)
	}
	return sd
}

// fetch GETs path as a logged-in browser (pages) or with the token (API) and returns the status,
// the Link header and the body.
func (ts *testServer) fetch(tb testing.TB, path string) (int, string, []byte) {
	tb.Helper()
	req, err := http.NewRequest("GET", ts.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	client := ts.client
	if strings.HasPrefix(path, "/api/") {
		req.Header.Set("Authorization", "Bearer "+testToken)
		client = http.DefaultClient
	} else if !ts.loggedIn() {
		resp, err := ts.client.Get(ts.URL + "/shared/-/new?token=" + testToken)
		if err != nil {
			tb.Fatal(err)
		}
		resp.Body.Close()
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Link"), b
}

// TestEverythingBoundedWith100000Sessions stores 100,000 sessions and checks that no API list
// answer and none of the list pages this package pages (history, /shared) is over 2 MB, at the
// largest limit a client may ask for; that a page of large rows is cut short and its cursor
// still walks every row once; and that a bad cursor or limit is refused.
func TestEverythingBoundedWith100000Sessions(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 100,000 sessions")
	}
	ts := newSharedServer(t, false, testConfig{})
	sd := seed(t, ts.testServer, storedSessions(t))
	for i := range 300 {
		ts.write(t, fmt.Sprintf("plan-%03d", i), "# Plan\n"+strings.Repeat("- [ ] a step of the plan\n", 200))
	}
	hist := "/sessions/" + sd.busy + "/plans/main/history"
	for _, tc := range []struct {
		path string
		more bool // more rows are stored than one page holds: a next page must be offered
	}{
		{"/api/v1/plans?limit=1000", true},
		{"/api/v1/sessions?limit=1000", true},
		{"/api/v1/sessions/" + sd.busy + "/tool-calls?limit=1000", true},
		{"/api/v1/approvals?limit=1000", true},
		{"/api/v1/approvals/audit?limit=1000", false},
		{"/api/v1/shared-plans?limit=1000", true},
		{"/api" + "/v1" + hist + "?limit=1000", true},
		{hist + "?limit=1000", true},
		{hist + "?from=1&to=3000", true},
		{"/shared?limit=1000", true},
	} {
		code, link, body := ts.fetch(t, tc.path)
		if code != http.StatusOK || len(body) > maxAnswer {
			t.Errorf("GET %s: %d, %d bytes (limit %d)", tc.path, code, len(body), maxAnswer)
		}
		offered := link != ""
		if !strings.HasPrefix(tc.path, "/api/") {
			doc, err := html.Parse(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			offered = len(all(doc, `[data-testid="pager-next"]`)) == 1
		}
		if offered != tc.more {
			t.Errorf("GET %s: a next page offered: %v, want %v", tc.path, offered, tc.more)
		}
		t.Logf("GET %s: %d KB", tc.path, len(body)>>10)
	}
	// Pages other rooms own: logged, for the report.
	for _, path := range []string{"/sessions", "/sessions/" + sd.busy, "/approvals/audit"} {
		_, _, body := ts.fetch(t, path)
		t.Logf("GET %s (not paged here): %d KB", path, len(body)>>10)
	}

	// Requests with 400 KB plans: pages are cut to fit, and the cursors walk them all once.
	var got []string
	next := "/api/v1/approvals?limit=200"
	for n := 0; next != ""; n++ {
		code, link, body := ts.fetch(t, next)
		var out struct {
			Requests []struct{ ID string }
			Next     string
		}
		if err := json.Unmarshal(body, &out); err != nil || code != http.StatusOK {
			t.Fatalf("%s: %d, %v", next, code, err)
		}
		if len(out.Requests) == 0 || len(body) > maxAnswer || n > 30 {
			t.Fatalf("%s: %d requests in %d bytes", next, len(out.Requests), len(body))
		}
		for _, r := range out.Requests {
			got = append(got, r.ID)
		}
		next = ""
		if out.Next != "" {
			next = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
			if u, err := url.Parse(next); err != nil || u.Query().Get("cursor") != out.Next {
				t.Fatalf("Link %q does not carry the next cursor %q", link, out.Next)
			}
		}
	}
	if strings.Join(got, ",") != strings.Join(sd.big, ",") {
		t.Fatalf("walking the approvals gave %v, want %v", got, sd.big)
	}

	for _, path := range []string{"/api/v1/sessions?cursor=nonsense", "/api/v1/sessions?limit=0", "/api/v1/plans?limit=-1",
		"/api/v1/approvals/audit?cursor=" + paging.Cursor{Key: 1}.String() + "x"} {
		if code, _, body := ts.fetch(t, path); code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400: %s", path, code, body)
		}
	}
}

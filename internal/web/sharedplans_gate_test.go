package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/sharedplans"
)

func TestSharedPlanThroughTheGate(t *testing.T) {
	for _, tt := range []struct {
		name, decision string
		wantStatus     string
		wantContent    string
	}{
		{"approve", `{"action":"approve"}`, "approved", "Step 1"},
		{"modify", `{"action":"modify","plan":{"type":"markdown","markdown":"Step 1, smaller"}}`, "approved", "Step 1, smaller"},
		{"reject", `{"action":"reject","comment":"not now"}`, "rejected", "Step 1"},
		{"request changes", `{"action":"request_changes","feedback":[{"target":"line","line":1,"comment":"which step?"}]}`, "rejected", "Step 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := newSharedServer(t, false, testConfig{})
			p := ts.write(t, "release", "Step 1", "Release", "planner", "draft")
			// The page's form, with the browser's cookie.
			ts.page(t, "/shared/release")
			noRedirect := *ts.client
			noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := noRedirect.PostForm(ts.URL+"/shared/release/approval", url.Values{"revision": {"1"}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			id := sharedplans.RequestID("release", p.Revision)
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/approvals/"+id {
				t.Fatalf("request approval: %d → %q", resp.StatusCode, resp.Header.Get("Location"))
			}
			if cur, _, _ := ts.other.Get(context.Background(), "release"); cur.Status != sharedplans.StatusWaiting {
				t.Fatalf("status while waiting: %q", cur.Status)
			}
			if code, _, body := ts.call(t, "POST", "/api/v1/approvals/"+id+"/decision", tt.decision, nil); code != http.StatusOK {
				t.Fatalf("decide: %d %s", code, body)
			}
			eventually(t, "the decision to land on the plan", func() bool {
				cur, _, _ := ts.other.Get(context.Background(), "release")
				return cur.Status == tt.wantStatus && cur.Content == tt.wantContent
			})
		})
	}
}

func TestSharedApprovalNeverOverwritesNewerWrites(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	ts.write(t, "release", "Step 1")
	ts.page(t, "/shared/release")
	ts.client.PostForm(ts.URL+"/shared/release/approval", url.Values{"revision": {"1"}})
	ts.write(t, "release", "An agent rewrote it") // revision 3, after "awaiting-approval"
	id := sharedplans.RequestID("release", 1)
	if code, _, body := ts.call(t, "POST", "/api/v1/approvals/"+id+"/decision", `{"action":"modify","plan":{"type":"markdown","markdown":"stale edit"}}`, nil); code != http.StatusOK {
		t.Fatalf("decide: %d %s", code, body)
	}
	cur, _, _ := ts.other.Get(context.Background(), "release")
	if !strings.Contains(cur.Content, "An agent rewrote it") {
		t.Fatalf("the decision overwrote a newer write: %q", cur.Content)
	}
	// A stale page cannot send an old revision to the gate.
	resp, _ := ts.client.PostForm(ts.URL+"/shared/release/approval", url.Values{"revision": {"1"}})
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Fatalf("a stale request for approval was accepted: %d", resp.StatusCode)
	}
}

func TestParseSharedRequestID(t *testing.T) {
	for id, want := range map[string]string{"shared-release-r3": "release/3", "shared-a-r-r12": "a-r/12", "shared--r1": "", "other-r1": "", "shared-x-rz": ""} {
		name, rev, ok := sharedplans.ParseRequestID(id)
		got := ""
		if ok {
			got = name + "/" + itoa(uint64(rev))
		}
		if got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
}

func TestOverviewListsSharedPlans(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	_, doc := ts.page(t, "/")
	if n := len(all(doc, `[data-testid=overview-shared-row]`)); n != 0 {
		t.Fatalf("%d rows with no shared plans", n)
	}
	ts.write(t, "release", "Step 1", "Release 1.4", "planner", "draft")
	ts.write(t, "hotfix", "Patch", "", "", "")
	_, doc = ts.page(t, "/")
	rows := all(doc, `[data-testid=overview-shared-row]`)
	if len(rows) != 2 || attr(rows[0], "data-name") != "hotfix" || !strings.Contains(text(rows[1]), "Release 1.4") || !strings.Contains(text(rows[1]), "planner") {
		t.Fatalf("rows: %d", len(rows))
	}
}

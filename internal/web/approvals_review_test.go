package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/testkit"
)

// TestReviewForm: the page offers a comment on every entry; a review posted from the form
// (drafts and the composer's unsent text) is refused with its drafts kept when a target is
// wrong, then reaches a waiting HTTP client as structured feedback; the next revision of the
// session shows which comments it addressed and a diff against the commented revision.
func TestReviewForm(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ts.page(t, "/approvals") // signs in
	r := ts.create(t, checklist)
	_, doc := ts.page(t, "/approvals/"+r.ID)
	var targets []string
	for _, o := range all(doc, `[data-testid=review-target] option`) {
		targets = append(targets, attr(o, "value"))
	}
	if strings.Join(targets, " ") != "plan entry:1 entry:2 entry:3" || len(all(doc, `[data-testid=request-changes]`)) != 1 {
		t.Fatalf("review targets %v", targets)
	}

	path := "/approvals/" + r.ID + "/decide"
	bad := url.Values{"action": {"request_changes"}, "key": {"k1"}, "c_target": {"entry:2", "entry:9"}, "c_text": {"smaller steps", "no such"}}
	resp := ts.form(t, path, bad)
	doc = parse(t, resp)
	if resp.StatusCode != 400 || !strings.Contains(text(all(doc, `[data-testid=notice]`)[0]), "entry 9") {
		t.Fatalf("a comment on a missing entry: %d", resp.StatusCode)
	}
	if d := outsideTemplates(all(doc, `[data-testid=review-draft]`)); len(d) != 2 || attr(d[0], "data-target") != "entry:2" {
		t.Fatalf("the refused review's drafts are not shown again: %d", len(d))
	}

	type result struct {
		code int
		raw  []byte
	}
	done := make(chan result, 1)
	go func() {
		code, raw, _ := ts.tryAPI("GET", "/api/v1/approvals/"+r.ID+"?wait=30s", nil)
		done <- result{code, raw}
	}()
	waitForWaiter(t, ts, r.ID)
	good := url.Values{"action": {"request_changes"}, "key": {"k2"}, "comment": {"Nearly."},
		"c_target": {"entry:2", "plan", "entry:3"}, "c_text": {"Say which function changes", "  ", "Run them twice\r\nwith -race"}}
	if resp := ts.form(t, path, good); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("request changes: %d", resp.StatusCode)
	}
	res := testkit.Recv(t, done, 30*time.Second, "long poll")
	got := decodeAs[apiApproval](t, res.raw).Request
	want := []approval.Comment{
		{Target: "entry", Entry: 2, Quote: "Change it", Comment: "Say which function changes"},
		{Target: "entry", Entry: 3, Quote: "Run the tests", Comment: "Run them twice\nwith -race"},
	}
	if res.code != 200 || got.Status != approval.ChangesRequested || got.Decision.Comment != "Nearly." || len(got.Decision.Feedback) != 2 ||
		got.Decision.Feedback[0] != want[0] || got.Decision.Feedback[1] != want[1] || !strings.Contains(got.Decision.FeedbackText, `On entry 2 ("Change it")`) {
		t.Fatalf("long poll answer %d %s", res.code, res.raw)
	}
	_, doc = ts.page(t, "/approvals/"+r.ID)
	if n := len(all(doc, `[data-testid=decision-feedback] [data-testid=feedback-item]`)); n != 2 ||
		text(all(doc, `[data-testid=decision-status]`)[0]) != "changes requested" {
		t.Fatalf("decided page shows %d comments", n)
	}

	// The revision: entry 2 rewritten, entry 3 kept.
	next := ts.create(t, `{"title":"Refactor the parser","agent":"claude","sessionId":"s1","plan":{"type":"items","entries":[
		{"content":"Read the code","priority":"high"},{"content":"Change parse() in lexer.go","priority":"medium"},{"content":"Run the tests","priority":"low"}]}}`)
	if next.Revises != r.ID {
		t.Fatalf("revision revises %q, want %q", next.Revises, r.ID)
	}
	_, doc = ts.page(t, "/approvals/"+next.ID)
	items := all(doc, `[data-testid=prior-review] [data-testid=prior-item]`)
	if len(items) != 2 || attr(items[0], "data-addressed") != "true" || attr(items[1], "data-addressed") != "false" ||
		!strings.Contains(text(all(doc, `[data-testid=prior-addressed]`)[0]), "1 of 2") {
		t.Fatalf("prior review: %d items", len(items))
	}
	if len(all(doc, `[data-testid=revision-diff] [data-testid=diff-change]:not([data-op=same]):not([data-op=skipped])`)) == 0 {
		t.Fatal("no diff against the commented revision")
	}
	if attr(all(doc, `[data-testid=prior-link]`)[0], "href") != "/approvals/"+r.ID {
		t.Fatal("the previous revision is not linked")
	}
}

// TestReviewAPI: the API takes a review as JSON; a review that says nothing is refused.
func TestReviewAPI(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	r := ts.create(t, `{"title":"Docs","plan":{"type":"markdown","markdown":"# Docs\n\n- API\n- CLI\n"}}`)
	if code, raw := ts.api(t, "POST", "/api/v1/approvals/"+r.ID+"/decision", `{"action":"request_changes"}`); code != 400 {
		t.Fatalf("empty review: %d %s", code, raw)
	}
	code, raw := ts.api(t, "POST", "/api/v1/approvals/"+r.ID+"/decision",
		`{"action":"request_changes","feedback":[{"target":"line","line":4,"comment":"and the config file"}]}`)
	got := decodeAs[apiApproval](t, raw).Request
	if code != 200 || got.Decision.Feedback[0].Quote != "- CLI" || got.Decision.By != "ann" {
		t.Fatalf("review: %d %s", code, raw)
	}
	code, raw = ts.api(t, "POST", "/api/v1/approvals/"+r.ID+"/decision", `{"action":"approve"}`)
	if code != 409 || !strings.Contains(string(raw), "already changes requested by ann") {
		t.Fatalf("late approval: %d %s", code, raw)
	}
}

// FuzzFeedbackForm: the decision form's comment pairs are read or refused, never panic; what
// is read has text and a known target.
func FuzzFeedbackForm(f *testing.F) {
	f.Add("entry:2", "split it", "plan", "")
	f.Add("line:x", "a", "call:", "b")
	f.Add("", "", "weird", "c")
	f.Fuzz(func(t *testing.T, t1, c1, t2, c2 string) {
		out, err := feedbackFromForm(url.Values{"c_target": {t1, t2}, "c_text": {c1, c2}})
		if err != nil {
			return
		}
		for _, c := range out {
			if strings.TrimSpace(c.Comment) == "" || c.Comment != strings.TrimSpace(c.Comment) {
				t.Fatalf("comment text %q", c.Comment)
			}
			switch c.Target {
			case approval.TargetPlan, approval.TargetEntry, approval.TargetLine, approval.TargetCall:
			default:
				t.Fatalf("target %q read", c.Target)
			}
		}
	})
}

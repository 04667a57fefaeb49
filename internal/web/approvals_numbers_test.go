package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestApprovalNumbersAgree: on a request's page the plan card, the review comments and the diff
// against the commented revision name a checklist entry by the same words and number.
func TestApprovalNumbersAgree(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ts.page(t, "/approvals") // signs in
	r := ts.create(t, checklist)
	review := url.Values{"action": {"request_changes"}, "key": {"k1"}, "c_target": {"entry:2"}, "c_text": {"Say which function changes"}}
	if resp := ts.form(t, "/approvals/"+r.ID+"/decide", review); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("request changes: %d", resp.StatusCode)
	}
	next := ts.create(t, `{"title":"Refactor the parser","agent":"claude","sessionId":"s1","plan":{"type":"items","entries":[
		{"content":"Read the code","priority":"high"},{"content":"Change it in lexer.go","priority":"medium"},{"content":"Run the tests","priority":"low"}]}}`)
	_, doc := ts.page(t, "/approvals/"+next.ID)

	entries := all(doc, `[data-testid=plan-shown] [data-testid=plan-entry]`)
	if len(entries) != 3 {
		t.Fatalf("%d entries in the plan card", len(entries))
	}
	for i, e := range entries {
		if n := text(one(t, e, `[data-testid=entry-number]`)); n != "entry "+itoa(uint64(i+1)) {
			t.Errorf("plan card entry %d is numbered %q", i+1, n)
		}
	}
	if !strings.Contains(text(entries[1]), "Change it in lexer.go") {
		t.Fatalf("entry 2 of the card is %q", text(entries[1]))
	}
	if w := text(one(t, doc, `[data-testid=prior-review] [data-testid=prior-item] .review-where`)); w != "Entry 2" {
		t.Errorf("the comment names %q", w)
	}
	var option string
	for _, o := range all(doc, `[data-testid=review-target] option`) {
		if attr(o, "value") == "entry:2" {
			option = text(o)
		}
	}
	if !strings.HasPrefix(option, "Entry 2: Change it in lexer.go") {
		t.Errorf("the composer offers entry 2 as %q", option)
	}
	if p := text(one(t, doc, `[data-testid=revision-diff] [data-testid=diff-change][data-op=edited] [data-testid=diff-pos]`)); p != "entry 2" {
		t.Errorf("the diff names the edited entry %q", p)
	}
}

// TestApprovalMarkdownNumbersAgree: comments on a markdown plan name a source line and the block
// it is part of, numbered as the diff on the same page numbers blocks.
func TestApprovalMarkdownNumbersAgree(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	r := ts.create(t, `{"title":"Docs","sessionId":"s1","plan":{"type":"markdown","markdown":"# Docs\n\nWrite the\nreference.\n\n- API\n- the CLI and flags\n"}}`)
	if code, raw := ts.api(t, "POST", "/api/v1/approvals/"+r.ID+"/decision",
		`{"action":"request_changes","feedback":[{"target":"line","line":7,"comment":"and the config file"},{"target":"line","line":4,"comment":"which one"}]}`); code != 200 {
		t.Fatalf("review: %d %s", code, raw)
	}
	_, doc := ts.page(t, "/approvals/"+r.ID)
	var where []string
	for _, w := range all(doc, `[data-testid=decision-feedback] [data-testid=feedback-where]`) {
		where = append(where, text(w))
	}
	if strings.Join(where, "|") != "Line 7 (block 4)|Line 4 (block 2)" {
		t.Errorf("the decided request's comments name %q", where)
	}

	next := ts.create(t, `{"title":"Docs","sessionId":"s1","plan":{"type":"markdown","markdown":"# Docs\n\nWrite the\nreference.\n\n- API\n- the CLI and its flags\n"}}`)
	_, doc = ts.page(t, "/approvals/"+next.ID)
	if w := text(all(doc, `[data-testid=prior-review] [data-testid=prior-where]`)[0]); w != "Line 7 (block 4)" {
		t.Errorf("the prior comment names %q", w)
	}
	var option string
	for _, o := range all(doc, `[data-testid=review-target] option`) {
		if attr(o, "value") == "line:7" {
			option = text(o)
		}
	}
	if option != "Line 7 (block 4): - the CLI and its flags" {
		t.Errorf("the composer offers line 7 as %q", option)
	}
	if p := text(one(t, doc, `[data-testid=revision-diff] [data-testid=diff-change][data-op=edited] [data-testid=diff-pos]`)); p != "block 4" {
		t.Errorf("the diff names the edited block %q", p)
	}
}

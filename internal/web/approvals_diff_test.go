package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestApprovalEditDiff: the gate's editor asks for "your changes" as the decided page will show
// them; a refused edit shows them on the page; nothing is decided by asking.
func TestApprovalEditDiff(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	r := ts.create(t, checklist)
	ts.page(t, "/approvals/"+r.ID) // signs in
	edit := url.Values{"key": {"k1"}, "action": {"modify"},
		"content": {"Change it carefully", "Read the code", "Run the tests"}, "priority": {"medium", "high", "high"},
		"status": {"pending", "pending", "pending"}}
	tests := []struct {
		name string
		form url.Values
		code int
		ops  string
	}{
		{"an edit", edit, 200, "moved|same|edited"},
		{"no edit", url.Values{"content": {"Read the code", "Change it", "Run the tests"}, "priority": {"high", "medium", "low"},
			"status": {"pending", "pending", "pending"}}, 200, ""},
		{"an unreadable editor", url.Values{"content": {"a", "b"}, "priority": {"high"}, "status": {"pending"}}, 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.form(t, "/approvals/"+r.ID+"/diff", tt.form)
			if resp.StatusCode != tt.code {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.code)
			}
			if tt.code != 200 {
				return
			}
			doc := parse(t, resp)
			var ops []string
			for _, c := range all(doc, `[data-testid=plan-diff] [data-testid=diff-change]`) {
				ops = append(ops, attr(c, "data-op"))
			}
			if summary := text(one(t, doc, `[data-testid=diff-summary]`)); (tt.ops == "") != (summary == "No changes.") {
				t.Errorf("summary %q", summary)
			}
			if got := strings.Join(ops, "|"); got != tt.ops {
				t.Errorf("changes %q, want %q", got, tt.ops)
			}
		})
	}
	if got, _ := ts.srv.gate.Get(t.Context(), r.ID); got.Decided() {
		t.Fatal("asking for the diff decided the request")
	}
	// A cross-site page cannot ask (nor read the plan through it).
	req, _ := http.NewRequest("POST", ts.URL+"/approvals/"+r.ID+"/diff", strings.NewReader(edit.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site diff: %d", resp.StatusCode)
	}
}

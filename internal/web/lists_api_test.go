package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// walkAPI follows an API list's Link headers from path to the last page and returns each
// page's rows (the array under key, as raw JSON objects), checking that the body's next cursor
// is the Link's.
func walkAPI(t *testing.T, ts *testServer, path, key string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for n := 0; path != ""; n++ {
		code, link, body := ts.fetch(t, path)
		var out map[string]json.RawMessage
		if err := json.Unmarshal(body, &out); err != nil || code != http.StatusOK {
			t.Fatalf("GET %s: %d, %v: %s", path, code, err, body)
		}
		var page []map[string]any
		var next string
		if err := json.Unmarshal(out[key], &page); err != nil {
			t.Fatalf("GET %s: %q is not a list: %v", path, key, err)
		}
		if err := json.Unmarshal(out["next"], &next); err != nil {
			t.Fatalf("GET %s: no next: %v", path, err)
		}
		rows = append(rows, page...)
		path = ""
		if next != "" {
			path = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
			if u, err := url.Parse(path); err != nil || u.Query().Get("cursor") != next {
				t.Fatalf("Link %q does not carry the cursor %q", link, next)
			}
		} else if link != "" {
			t.Fatalf("the last page has a Link %q", link)
		}
		if n > 100 {
			t.Fatal("more pages than rows")
		}
	}
	return rows
}

// TestListsWalkWithLinks walks every paged API list two rows at a time through its Link
// headers and checks each row comes once, in the list's order.
func TestListsWalkWithLinks(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	var lines []string
	for i := range 5 {
		sid := fmt.Sprintf("s%d", i)
		lines = append(lines, update(sid, planA),
			update(sid, fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"c%d","title":"Read","status":"completed"}`, i)))
	}
	for i := range 4 {
		lines = append(lines, update("s0", fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"more%d","title":"Read","status":"completed"}`, i)),
			update("s0", fmt.Sprintf(`{"sessionUpdate":"plan","entries":[{"content":"step %d","priority":"high","status":"pending"}]}`, i)))
	}
	if code, res := ts.ingest(t, strings.Join(lines, "\n")); code != http.StatusOK {
		t.Fatalf("ingest: %d %+v", code, res)
	}
	for i := range 5 {
		ts.create(t, fmt.Sprintf(`{"title":"Plan %d","sessionId":"s1","plan":{"type":"markdown","markdown":"# do it"}}`, i))
	}
	for i := range 5 {
		ts.write(t, fmt.Sprintf("plan-%d", i), "# Plan")
	}
	// Through the API, so the history records each state (no watcher runs here).
	if code, raw := ts.api(t, "POST", "/api/v1/shared-plans", `{"name":"busy","content":"# Busy"}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, raw)
	}
	for i := range 4 {
		if code, raw := ts.api(t, "PUT", "/api/v1/shared-plans/busy", fmt.Sprintf(`{"content":"# Busy %d"}`, i)); code != http.StatusOK {
			t.Fatalf("write: %d %s", code, raw)
		}
	}
	field := func(rows []map[string]any, path ...string) []string {
		var out []string
		for _, r := range rows {
			var v any = r
			for _, p := range path {
				v = v.(map[string]any)[p]
			}
			out = append(out, fmt.Sprint(v))
		}
		return out
	}
	for _, tc := range []struct {
		path, key string
		field     []string
		want      string
	}{
		{"/api/v1/sessions?limit=2", "sessions", []string{"id"}, "s4 s3 s2 s1 s0"}, // one batch: one time, ties by id
		{"/api/v1/plans?limit=2", "sessions", []string{"session", "id"}, "s4 s3 s2 s1 s0"},
		{"/api/v1/sessions/s0/tool-calls?limit=2", "toolCalls", []string{"id"}, "c0 more0 more1 more2 more3"},
		{"/api/v1/approvals?limit=2", "requests", []string{"title"}, "Plan 0 Plan 1 Plan 2 Plan 3 Plan 4"},
		{"/api/v1/approvals/audit?limit=2&agent=", "events", []string{"title"}, "Plan 4 Plan 3 Plan 2 Plan 1 Plan 0"},
		{"/api/v1/shared-plans?limit=2", "plans", []string{"name"}, "busy plan-0 plan-1 plan-2 plan-3 plan-4"},
		{"/api/v1/shared-plans/busy/history?limit=2", "entries", []string{"revision"}, "5 4 3 2 1"},
		{"/api/v1/sessions/s0/plans/main/history?limit=2", "revisions", []string{"revision"}, "5 4 3 2 1"},
	} {
		rows := walkAPI(t, ts.testServer, tc.path, tc.key)
		if got := strings.Join(field(rows, tc.field...), " "); got != tc.want {
			t.Errorf("walking %s: %s, want %s", tc.path, got, tc.want)
		}
	}
}

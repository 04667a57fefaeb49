package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/plans"
)

// TestHistoryStructuredDiff: the history page shows what changed between two revisions as a
// person reads it (moved, edited word by word, status badges, added, removed), with signs and
// words besides colour; every revision is a link; the JSON API serves the same diff.
func TestHistoryStructuredDiff(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	rev1 := `{"sessionUpdate":"plan","entries":[
		{"content":"Read the router setup","priority":"high","status":"completed"},
		{"content":"Add a token bucket limiter","priority":"high","status":"in_progress"},
		{"content":"Write table tests","priority":"medium","status":"pending"},
		{"content":"Update the changelog","priority":"low","status":"pending"},
		{"content":"Deploy <b>now</b>","priority":"low","status":"pending"}]}`
	rev2 := `{"sessionUpdate":"plan","entries":[
		{"content":"Update the changelog","priority":"low","status":"pending"},
		{"content":"Read the router setup","priority":"high","status":"completed"},
		{"content":"Add a sliding window limiter","priority":"high","status":"completed"},
		{"content":"Write table tests","priority":"high","status":"pending"},
		{"content":"Benchmark it","priority":"medium","status":"pending"}]}`
	md1 := `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"design","content":"# Limits\n\n- [ ] read\n- [ ] write"}}`
	md2 := `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"design","content":"# Rate Limits\n\n- [x] read\n- [ ] write"}}`
	// NDJSON: one message a line.
	flat := strings.NewReplacer("\n", "", "\t", "").Replace
	if code, res := ts.ingest(t, strings.Join([]string{update("h1", flat(rev1)), update("h1", flat(rev2)), update("h1", md1), update("h1", md2)}, "\n")); code != 200 || res.Applied != 4 {
		t.Fatalf("ingest: %d %+v", code, res)
	}

	code, doc := ts.page(t, "/sessions/h1/plans/main/history")
	if code != 200 {
		t.Fatalf("history page: %d", code)
	}
	if s := text(one(t, doc, `[data-testid=diff-summary]`)); s != "Changes: 1 added, 1 removed, 1 moved, 2 changed." {
		t.Errorf("summary %q", s)
	}
	changes := all(doc, `[data-testid=plan-diff] [data-testid=diff-change]`)
	var got []string
	for _, c := range changes {
		got = append(got, attr(c, "data-op")+" "+attr(c, "data-from")+"→"+attr(c, "data-to"))
	}
	want := "moved 4→1|same 1→2|edited 2→3|edited 3→4|removed 5→0|added 0→5"
	if strings.Join(got, "|") != want {
		t.Fatalf("changes %q, want %q", strings.Join(got, "|"), want)
	}
	if l := text(one(t, changes[0], `[data-testid=diff-label]`)); l != "moved" || !strings.Contains(text(changes[0]), "entry 4 → 1") {
		t.Errorf("the move says %q", text(changes[0]))
	}
	edited := changes[2]
	if text(one(t, edited, "del")) != "token bucket" || text(one(t, edited, "ins")) != "sliding window" {
		t.Errorf("word edit %q", text(edited))
	}
	if s := text(one(t, edited, `[data-testid=diff-status]`)); !strings.Contains(s, "in progress") || !strings.Contains(s, "completed") {
		t.Errorf("status change %q", s)
	}
	if s := text(one(t, changes[3], `[data-testid=diff-priority]`)); !strings.Contains(s, "medium") || !strings.Contains(s, "high") {
		t.Errorf("priority change %q", s)
	}
	// Removed text is struck (<del>) and says so in words; agent text is escaped, not markup.
	if text(one(t, changes[4], "del")) != "Deploy <b>now</b>" || text(one(t, changes[4], `[data-testid=diff-label]`)) != "removed" ||
		len(all(changes[4], "b")) != 0 {
		t.Errorf("removed entry %q", text(changes[4]))
	}
	if text(one(t, changes[5], "ins")) != "Benchmark it" {
		t.Errorf("added entry %q", text(changes[5]))
	}

	// Every revision is a link comparing it with the one before, newest first; the one shown is
	// marked.
	links := all(doc, `[data-testid=revisions] [data-testid=revision-link]`)
	if len(links) != 2 || attr(links[0], "href") != "/sessions/h1/plans/main/history?from=1&to=2" {
		t.Fatalf("revision links: %d", len(links))
	}
	if cur := all(doc, `[data-testid=revision][aria-current=true]`); len(cur) != 1 || !strings.Contains(text(cur[0]), "rev 2") {
		t.Error("the revision shown is not marked current")
	}

	// Revision 1 shows what the plan started with: everything added.
	_, doc = ts.page(t, "/sessions/h1/plans/main/history?from=1&to=1")
	if len(all(doc, `[data-testid=first-revision]`)) != 1 || len(all(doc, `[data-testid=diff-change][data-op=added]`)) != 5 {
		t.Error("revision 1 does not show the plan it started with")
	}

	// A markdown plan diffs by block: the heading edited word by word, the task ticked.
	_, doc = ts.page(t, "/sessions/h1/plans/design/history")
	if d := one(t, doc, `[data-testid=plan-diff]`); attr(d, "data-mode") != "blocks" {
		t.Fatalf("markdown diff mode %q", attr(d, "data-mode"))
	}
	heading := one(t, doc, `[data-testid=diff-change][data-op=edited]:first-child`)
	if strings.TrimSpace(text(one(t, heading, "ins"))) != "Rate" || !strings.Contains(text(heading), "heading 1") {
		t.Errorf("heading change %q", text(heading))
	}
	if s := text(one(t, doc, `[data-testid=diff-status]`)); !strings.Contains(s, "open") || !strings.Contains(s, "done") {
		t.Errorf("task change %q", s)
	}

	// The API serves the structured diff beside the line diff it always had.
	code, body := ts.api(t, http.MethodGet, "/api/v1/sessions/h1/plans/main/history", nil)
	var h struct {
		Diff    []struct{ Op, Text string }
		Changes plans.StructuredDiff
	}
	if err := json.Unmarshal(body, &h); code != 200 || err != nil {
		t.Fatalf("api: %d %v", code, err)
	}
	if h.Changes.Mode != plans.ModeEntries || h.Changes.Stats.Moved != 1 || len(h.Diff) == 0 ||
		h.Changes.Changes[2].Words[1].Op != plans.Removed {
		t.Errorf("api changes %+v", h.Changes)
	}
}

package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/web/templates"
)

// TestLongSessionLivePath: a session with more tool calls than a page shows renders its newest
// ones with the total, and a change to one tool call reaches an open page as that row (and the
// count), never as the whole list again.
func TestLongSessionLivePath(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	const n = 260
	var lines []string
	for i := range n {
		lines = append(lines, update("long", fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"t%d","title":"Step %d","status":"pending"}`, i, i)))
	}
	lines = append(lines, update("long", `{"sessionUpdate":"plan","entries":[{"content":"Work","priority":"high","status":"in_progress"}]}`))
	if code, res := ts.ingest(t, strings.Join(lines, "\n")); code != 200 || res.Applied != n+1 {
		t.Fatalf("ingest: %d %+v", code, res)
	}
	_, doc := ts.page(t, "/sessions/long")
	if rows := all(doc, `[data-testid="tool-call"]`); len(rows) != 200 {
		t.Fatalf("the page shows %d tool calls, want the newest 200", len(rows))
	}
	if c := all(doc, `[data-testid="tool-call-count"]`); len(c) != 1 || text(c[0]) != fmt.Sprint(n) {
		t.Fatal("the page does not count every tool call")
	}
	if len(all(doc, `[data-testid="tool-calls-older"]`)) != 1 {
		t.Fatal("the page does not say older tool calls are not shown")
	}

	c := ts.socket(t, "topic=session:long")
	ts.ingest(t, update("long", `{"sessionUpdate":"tool_call_update","toolCallId":"t250","status":"completed"}`))
	row := templates.ToolCallRowID("long", "t250")
	frames(t, c, "the row", func(f frame) bool {
		if f.ID == templates.ToolCallsID("long") {
			t.Fatal("a change to one tool call re-sent the whole list")
		}
		if f.ID == row && !strings.Contains(f.HTML, `data-status="completed"`) {
			t.Fatalf("row frame %+v", f)
		}
		return f.ID == row
	})

	// A new tool call adds its row and changes the count; an update to one (above) does not
	// recount, which on a long session costs more than the rest of the change.
	ts.ingest(t, update("long", `{"sessionUpdate":"tool_call","toolCallId":"t-new","title":"One more","status":"pending"}`))
	newRow, head := templates.ToolCallRowID("long", "t-new"), templates.ToolCallsHeadID("long")
	var gotRow, gotCount bool
	frames(t, c, "the new row and the count", func(f frame) bool {
		switch f.ID {
		case newRow:
			gotRow = true
		case head:
			if !strings.Contains(f.HTML, fmt.Sprint(n+1)) {
				t.Fatalf("the count reads %s, want %d", f.HTML, n+1)
			}
			gotCount = true
		}
		return gotRow && gotCount
	})
	c.Close(websocket.StatusNormalClosure, "")
}

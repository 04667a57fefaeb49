package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/web/templates"
)

// BenchmarkUpdateLongSession is the cost of one change to a session, from the POST to the frame
// on an open page's socket, for a fresh session and for one with 20,000 tool calls (a long
// Claude Code day): the live path applies the change and renders the one row, so the two should
// cost about the same (issue #11: ≤ 2×). ns/op is the whole round trip; compare the two cases
// of one run.
func BenchmarkUpdateLongSession(b *testing.B) {
	for _, calls := range []int{1, 20_000} {
		b.Run(fmt.Sprintf("tool_calls=%d", calls), func(b *testing.B) {
			ts := newTestServer(b, testConfig{})
			const sid = "long"
			for start := 0; start < calls; start += 1000 {
				var lines []string
				for i := start; i < min(start+1000, calls); i++ {
					lines = append(lines, update(sid, fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"t%d","title":"Step %d","status":"pending"}`, i, i)))
				}
				if code, _ := ts.ingest(b, strings.Join(lines, "\n")); code != 200 {
					b.Fatalf("seeding: %d", code)
				}
			}
			c := ts.socket(b, "topic=session:"+sid)
			row := templates.ToolCallRowID(sid, "t0")
			statuses := []string{"in_progress", "completed"}
			for i := 0; b.Loop(); i++ {
				status := statuses[i%2]
				if code, _ := ts.ingest(b, update(sid, `{"sessionUpdate":"tool_call_update","toolCallId":"t0","status":"`+status+`"}`)); code != 200 {
					b.Fatalf("update: %d", code)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				for {
					_, data, err := c.Read(ctx)
					if err != nil {
						cancel()
						b.Fatalf("waiting for the row: %v", err)
					}
					f := decodeFrame(b, c, data)
					if f.ID == row && strings.Contains(f.HTML, `data-status="`+status+`"`) {
						break
					}
				}
				cancel()
			}
		})
	}
}

package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/plans"
)

// A body of a million bad lines answered with every error (119 MB); the answer lists the first
// plans.MaxReportedIssues in line order and counts them all.
func TestIngestErrorsAreCapped(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	badParams := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":5}}`
	tests := []struct {
		name      string
		body      string
		status    int
		applied   int
		count     int
		listed    int
		firstLine int
	}{
		{"a million bad lines", strings.Repeat("x\n", 1_000_000), 400, 0, 1_000_000, plans.MaxReportedIssues, 1},
		{"bad params and bad JSON interleaved, one good line", update("s", planA) + "\n" + strings.Repeat(badParams+"\n{x\n", 5000), 200, 1, 10000, plans.MaxReportedIssues, 2},
		{"under the cap everything is listed", "x\n" + update("s", planA) + "\ny\n", 200, 1, 2, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := ts.api(t, "POST", "/api/v1/ingest", tt.body)
			if len(raw) > 64<<10 {
				t.Fatalf("the answer weighs %d bytes", len(raw))
			}
			var res IngestResult
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
			if code != tt.status || res.Applied != tt.applied || res.ErrorCount != tt.count || len(res.Errors) != tt.listed {
				t.Fatalf("status %d, applied %d, %d errors listed of %d", code, res.Applied, len(res.Errors), res.ErrorCount)
			}
			if res.Errors[0].Line != tt.firstLine {
				t.Errorf("the first error listed is on line %d, want %d", res.Errors[0].Line, tt.firstLine)
			}
			for i := 1; i < len(res.Errors); i++ {
				if res.Errors[i].Line <= res.Errors[i-1].Line {
					t.Fatalf("errors out of line order at %d: %+v", i, res.Errors[i-1:i+1])
				}
			}
		})
	}
	// The count is part of every answer, zero included.
	if _, raw := ts.api(t, "POST", "/api/v1/ingest", update("s", planA)); !strings.Contains(string(raw), `"errorCount": 0`) {
		t.Errorf("answer without errorCount: %s", raw)
	}
}

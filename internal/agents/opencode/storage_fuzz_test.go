package opencode

import (
	"testing"

	"github.com/plandash/plandash/internal/acp"
)

// FuzzStoredSession: whatever OpenCode's database holds for a session (ids, directory, title,
// the model's JSON, counts, todos), the messages plandash makes of it decode as ACP.
func FuzzStoredSession(f *testing.F) {
	f.Add("ses_1", "/w", "ok", `{"id":"claude-sonnet-4-5","providerID":"anthropic"}`, int64(20), int64(20), 0.00036, "Parse", "in_progress", "high")
	f.Add("", "", "", "{", int64(-1), int64(0), -1.0, "", "", "")
	f.Fuzz(func(t *testing.T, id, dir, title, model string, in, out int64, cost float64, todo, status, priority string) {
		r := storedSession{ID: id, Directory: dir, Title: title, Model: model, In: in, Out: out, Cost: cost}
		b := storedBatch(&OpenCode, r, []Todo{{Content: todo, Status: status, Priority: priority}}, "h")
		for _, m := range b.out {
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("%v: %s", err, m)
			}
		}
	})
}

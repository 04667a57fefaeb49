package sharedplans

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzToolArguments calls every tool with arbitrary arguments, as an MCP client may: each call
// returns output or an error, never panics, and whatever it wrote reads back as a valid plan.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{
		`{"name":"release","content":"Step 1","title":"Release","status":"draft"}`,
		`{"name":"release","last_known_revision":1,"status":"done"}`,
		`{"name":"../etc/passwd","content":"x"}`, `{"name":"a","path":"/etc/passwd"}`,
		`"{\"name\":\"quoted\",\"content\":\"x\"}"`, `null`, `[]`, `{"name":5}`,
	} {
		for i := range 8 {
			f.Add(uint8(i), []byte(seed))
		}
	}
	ts := NewToolset(New(f.TempDir()), nil)
	tools := ts.Tools()
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tool := tools[int(which)%len(tools)]
		out, err := tool.Call(context.Background(), json.RawMessage(args))
		if err == nil && out == "" {
			t.Fatalf("%s succeeded with no output", tool.Name)
		}
		if err != nil && errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s left a corrupt plan behind: %v", tool.Name, err)
		}
		list, err := ts.ListPlans(context.Background())
		if err != nil || len(list.Warnings) > 0 {
			t.Fatalf("after %s the store lists warnings %q (%v)", tool.Name, list.Warnings, err)
		}
	})
}

package codex

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// realGoalOutput is create_goal's output as Codex 0.169.0 recorded it in a rollout (a JSON string).
const realGoalOutput = `"{\"goal\":{\"threadId\":\"01a22078-d4ff-7d00-a134-26c51ff4985c\",\"objective\":\"Ship the parser with fuzz tests\",` +
	`\"status\":\"active\",\"tokenBudget\":50000,\"tokensUsed\":0,\"timeUsedSeconds\":0,\"createdAt\":1795841119,\"updatedAt\":1795841119},` +
	`\"remainingTokens\":50000,\"completionBudgetReport\":null}"`

func TestParseGoalOutput(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{realGoalOutput, "Ship the parser with fuzz tests/active/in_progress"},
		{`{"goal":{"objective":"x","status":"budgetLimited"}}`, "x/budgetLimited/_budgetLimited"},
		{`{"goal":{"objective":"x","status":"paused"}}`, "x/paused/pending"},
		{`"{\"goal\":null,\"remainingTokens\":null}"`, ""},
		{`"cannot create a new goal because this thread already has a goal"`, ""},
		{`{"goal":{"objective":"  "}}`, ""},
		{`7`, ""},
	} {
		g, ok := ParseGoalOutput(json.RawMessage(tc.in))
		got := ""
		if ok {
			got = g.Objective + "/" + g.Status + "/" + goalStatus(g.Status)
		}
		if got != tc.want {
			t.Errorf("ParseGoalOutput(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzParseGoalOutput: any output gives a goal with an objective, or none, never a panic, and
// the goal's status always becomes one a plan entry accepts.
func FuzzParseGoalOutput(f *testing.F) {
	f.Add([]byte(realGoalOutput))
	f.Add([]byte(`{"goal":{"objective":"a","status":"weird status!"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, ok := ParseGoalOutput(b)
		if !ok {
			return
		}
		if g.Objective == "" {
			t.Fatal("a goal without an objective")
		}
		if s := goalStatus(g.Status); s == "" || !utf8.ValidString(s) || len(s) > 80 {
			t.Fatalf("status %q", s)
		}
	})
}

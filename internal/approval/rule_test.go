package approval

import "testing"

// TestRuleMatchesAgentByID: a rule's agent matches a request's by canonical id, whichever
// spelling each was written with; every other field still has to match.
func TestRuleMatchesAgentByID(t *testing.T) {
	items := PlanBody{Type: TypeItems}
	for _, tc := range []struct {
		name string
		rule Rule
		req  Request
		want bool
	}{
		{"the form's id, the hook's name", Rule{Agent: "claude-code"}, Request{Agent: "Claude Code", Plan: items}, true},
		{"the hook's name, as rules were written before", Rule{Agent: "Claude Code"}, Request{Agent: "Claude Code", Plan: items}, true},
		{"another case", Rule{Agent: "claude code"}, Request{Agent: "Claude Code", Plan: items}, true},
		{"the ACP adapter", Rule{Agent: "claude-code"}, Request{Agent: "claude-agent-acp", Plan: items}, true},
		{"a custom agent, its own id", Rule{Agent: "linter"}, Request{Agent: "Linter", Plan: items}, true},
		{"another agent", Rule{Agent: "codex"}, Request{Agent: "Claude Code", Plan: items}, false},
		{"no agent on the request", Rule{Agent: "codex"}, Request{Plan: items}, false},
		{"the agent but not the session", Rule{Agent: "claude-code", SessionID: "s1"}, Request{Agent: "Claude Code", SessionID: "s2", Plan: items}, false},
		{"the agent but not the plan type", Rule{Agent: "claude-code", Kind: TypeDAG}, Request{Agent: "Claude Code", Plan: items}, false},
	} {
		if got := tc.rule.Matches(tc.req); got != tc.want {
			t.Errorf("%s: %+v matches %q = %v, want %v", tc.name, tc.rule, tc.req.Agent, got, tc.want)
		}
	}
}

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
		if got := tc.rule.Matches(tc.req, Place{}); got != tc.want {
			t.Errorf("%s: %+v matches %q = %v, want %v", tc.name, tc.rule, tc.req.Agent, got, tc.want)
		}
	}
}

// TestRuleMatchesPlace: a rule limited to a machine or a directory matches only requests whose
// session plandash saw there (the directory or below it), never one it has not seen.
func TestRuleMatchesPlace(t *testing.T) {
	req := Request{Agent: "Claude Code", SessionID: "s1", Plan: PlanBody{Type: TypeItems}}
	here := Place{Machine: "devbox", Cwd: "/home/ann/src/plandash"}
	for _, tc := range []struct {
		name string
		rule Rule
		at   Place
		want bool
	}{
		{"the machine", Rule{Machine: "devbox"}, here, true},
		{"the machine in another case", Rule{Machine: "DevBox"}, here, true},
		{"another machine", Rule{Machine: "ci"}, here, false},
		{"the directory", Rule{Cwd: "/home/ann/src/plandash"}, here, true},
		{"a parent directory, with a slash", Rule{Cwd: "/home/ann/src/"}, here, true},
		{"a sibling that shares the prefix", Rule{Cwd: "/home/ann/src/plan"}, here, false},
		{"a subdirectory of the session's", Rule{Cwd: "/home/ann/src/plandash/web"}, here, false},
		{"Windows paths", Rule{Cwd: `C:\src`}, Place{Machine: "w", Cwd: `C:\src\app`}, true},
		{"agent, machine and directory", Rule{Agent: "claude-code", Machine: "devbox", Cwd: "/home/ann"}, here, true},
		{"agent right, machine wrong", Rule{Agent: "claude-code", Machine: "ci"}, here, false},
		{"a session plandash never saw", Rule{Machine: "devbox"}, Place{}, false},
		{"a directory for a session plandash never saw", Rule{Cwd: "/"}, Place{}, false},
	} {
		if got := tc.rule.Matches(req, tc.at); got != tc.want {
			t.Errorf("%s: %+v at %+v = %v, want %v", tc.name, tc.rule, tc.at, got, tc.want)
		}
	}
}

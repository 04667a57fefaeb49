package waits

import (
	"testing"

	"github.com/plandash/plandash/internal/approval"
)

// TestPlanWaitNamesTheAgent: a plan from a session plandash has not seen is named by its agent's
// display name, whichever spelling the agent submitted with; a seen session's name wins.
func TestPlanWaitNamesTheAgent(t *testing.T) {
	for _, tc := range []struct {
		agent string
		who   Who
		want  string
	}{
		{"claude-agent-acp", Who{}, "Claude Code"},
		{"claude-code", Who{}, "Claude Code"},
		{"codex", Who{}, "Codex"},
		{"My Linter", Who{}, "My Linter"},
		{"", Who{}, ""},
		{"claude-agent-acp", Who{SessionID: "s1", AgentName: "Claude Code (plan mode)"}, "Claude Code (plan mode)"},
	} {
		r := approval.Request{ID: "r1", Agent: tc.agent, Plan: approval.PlanBody{Type: approval.TypeItems}}
		if got := planWait(r, tc.who).AgentName; got != tc.want {
			t.Errorf("a plan from %q (%+v) is named %q, want %q", tc.agent, tc.who, got, tc.want)
		}
	}
}

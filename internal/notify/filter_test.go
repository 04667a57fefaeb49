package notify_test

import (
	"testing"

	"github.com/plandash/plandash/internal/notify"
)

// TestFilterMatchesAgentsByID: a target's agents match a wait's by canonical id, so "claude-code"
// (as the settings form suggests) takes Claude Code's waits whichever name they carry.
func TestFilterMatchesAgentsByID(t *testing.T) {
	for _, tc := range []struct {
		agents []string
		w      notify.Wait
		want   bool
	}{
		{[]string{"claude-code"}, notify.Wait{Agent: "claude-code", AgentName: "Claude Code"}, true},
		{[]string{"claude-code"}, notify.Wait{AgentName: "Claude Code"}, true},
		{[]string{"Claude Code"}, notify.Wait{Agent: "claude-agent-acp"}, true},
		{[]string{"codex", "gemini"}, notify.Wait{Agent: "gemini-cli", AgentName: "Gemini CLI"}, true},
		{[]string{"codex"}, notify.Wait{Agent: "claude-code", AgentName: "Claude Code"}, false},
		{[]string{"codex"}, notify.Wait{}, false},
		{nil, notify.Wait{Agent: "anything"}, true},
	} {
		f := notify.Filter{Agents: tc.agents}
		if got := f.Allows(tc.w); got != tc.want {
			t.Errorf("agents %q let %+v through = %v, want %v", tc.agents, tc.w, got, tc.want)
		}
	}
}

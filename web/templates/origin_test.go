package templates

import "testing"

// TestOriginNamesTheAgent: a request says where it comes from with its agent's one display name.
func TestOriginNamesTheAgent(t *testing.T) {
	for _, tc := range []struct{ agent, session, want string }{
		{"claude-agent-acp", "s1", "Claude Code · session s1"},
		{"Claude Code", "", "Claude Code"},
		{"gemini-cli", "", "Gemini CLI"},
		{"My Linter", "", "My Linter"},
		{"", "s2", "session s2"},
		{"", "", "unnamed agent"},
	} {
		if got := origin(tc.agent, tc.session); got != tc.want {
			t.Errorf("origin(%q, %q) = %q, want %q", tc.agent, tc.session, got, tc.want)
		}
	}
}

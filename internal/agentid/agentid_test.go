package agentid

import (
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		in       string
		id, name string
	}{
		{"Claude Code", "claude-code", "Claude Code"},
		{"claude-code", "claude-code", "Claude Code"},
		{"  CLAUDE_CODE ", "claude-code", "Claude Code"},
		{"claude-agent-acp", "claude-code", "Claude Code"},
		{"Codex", "codex", "Codex"},
		{"codex-acp", "codex", "Codex"},
		{"Gemini CLI", "gemini-cli", "Gemini CLI"},
		{"gemini", "gemini-cli", "Gemini CLI"},
		{"OpenCode", "opencode", "OpenCode"},
		{"cursor-agent", "cursor", "Cursor"},
		{"My Agent", "my-agent", "My Agent"},
		{"my-agent", "my-agent", "my-agent"},
		{"linter", "linter", "linter"},
		{"", "", ""},
		{"  ", "", ""},
	} {
		if got := Of(tc.in); got.ID != tc.id || got.Name != tc.name {
			t.Errorf("Of(%q) = %+v, want {%s %s}", tc.in, got, tc.id, tc.name)
		}
	}
}

func TestSame(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"claude-code", "Claude Code", true},
		{"Claude Code", "claude-agent-acp", true},
		{"claude code", "CLAUDE-CODE", true},
		{"codex", "Claude Code", false},
		{"My Agent", "my-agent", true},
		{"", "", false},
		{"", "codex", false},
		{"linter", "lint", false},
	} {
		if got := Same(tc.a, tc.b); got != tc.want {
			t.Errorf("Same(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func FuzzOf(f *testing.F) {
	for _, s := range []string{"Claude Code", "claude-agent-acp", "a  b", "-x-", "é É"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := Of(s)
		if again := Of(a.ID); again.ID != a.ID {
			t.Errorf("Of(%q).ID = %q, but Of of that is %q: an id must be its own id", s, a.ID, again.ID)
		}
		if a.ID != "" && !Same(s, a.Name) {
			t.Errorf("%q and its display name %q are not the same agent", s, a.Name)
		}
	})
}

func TestSpellings(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"Claude Code", []string{"claude-code", "claude", "claudecode", "claude-agent-acp", "claude-code-acp"}},
		{"claude-agent-acp", []string{"claude-code", "claude", "claudecode", "claude-agent-acp", "claude-code-acp"}},
		{"My Linter", []string{"my-linter"}},
		{" ", nil},
	} {
		if got := Spellings(tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("Spellings(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

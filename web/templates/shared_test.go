package templates

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", excerptBytes) // 2 bytes a rune, no line breaks
	for _, tt := range []struct {
		name    string
		in      string
		wantLen int
		cut     bool
	}{
		{"short", "# Plan\n\n- a\n", len("# Plan\n\n- a\n"), false},
		{"many lines", strings.Repeat("x\n", 100), 2 * excerptLines, true},
		{"exactly the line limit", strings.Repeat("x\n", excerptLines), 2 * excerptLines, false},
		{"many bytes", strings.Repeat(strings.Repeat("y", 99)+"\n", 50), 40 * 100, true},
		{"one huge line", long, excerptBytes, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := excerpt(tt.in)
			if len(got) != tt.wantLen || cut != tt.cut || !strings.HasPrefix(tt.in, got) || !utf8.ValidString(got) {
				t.Fatalf("excerpt = %d bytes, cut %v; want %d bytes, cut %v", len(got), cut, tt.wantLen, tt.cut)
			}
		})
	}
}

func TestStatusClass(t *testing.T) {
	for in, want := range map[string]string{
		"done": "done", "Completed": "done", "in-progress": "doing", "in_progress": "doing", "In Progress": "doing",
		"blocked": "blocked", "drafting": "draft", "ready-for-build": "ready", "awaiting review": "ready", "shipping soon": "other",
	} {
		if got := statusClass(in); got != want {
			t.Errorf("statusClass(%q) = %q, want %q", in, got, want)
		}
	}
}

package templates

import (
	"context"
	"strings"
	"testing"
)

func renderMarkdown(t *testing.T, src string) string {
	t.Helper()
	var b strings.Builder
	if err := Markdown(src).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Agent markdown renders without raw HTML or script links, and a task list's boxes carry names.
func TestMarkdown(t *testing.T) {
	for _, c := range []struct{ src, want, not string }{
		{"- [x] ship\n- [ ] test", `<input checked="" disabled="" type="checkbox" aria-label="done"> ship`, ""},
		{"- [ ] test", `<input disabled="" type="checkbox" aria-label="not done"> test`, ""},
		{"<script>alert(1)</script>", "<!-- raw HTML omitted -->", "<script>"},
		{"[x](javascript:alert(1))", `<a href="">x</a>`, "javascript:"},
		{"| a |\n|:-:|\n| b |", `<th align="center">a</th>`, "style="},
	} {
		got := renderMarkdown(t, c.src)
		if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
			t.Errorf("Markdown(%q) = %s\nwant it to contain %s", c.src, got, c.want)
		}
	}
}

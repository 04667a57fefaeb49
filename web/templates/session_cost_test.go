package templates

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
	"github.com/plandash/plandash/internal/plans"
	"golang.org/x/net/html"
)

// TestSessionCardCost: the session card says where the session came from and what it costs,
// only as far as the agent reported: the window's fill as a meter when its size is known,
// the tokens in context otherwise, nothing when nothing was reported.
func TestSessionCardCost(t *testing.T) {
	render := func(s plans.Session) *html.Node {
		var b bytes.Buffer
		if err := SessionGroup(Group{Session: s, State: StateActive}, time.Now()).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		n, err := html.Parse(&b)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	text := func(n *html.Node, sel string) string {
		m := cascadia.MustCompile(sel).MatchFirst(n)
		if m == nil {
			return ""
		}
		var b strings.Builder
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.TextNode {
				b.WriteString(n.Data)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(m)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, tc := range []struct {
		name      string
		s         plans.Session
		via, cost string
		meter     bool
	}{
		{"transcript", plans.Session{ID: "a", Via: []string{plans.ViaTranscript},
			Usage: &plans.Usage{Model: "claude-sonnet-4-5", InputTokens: 123456, OutputTokens: 1200, Used: 45210}},
			"from its transcript", "claude-sonnet-4-5 · 123k in · 1.2k out · 45.2k tokens in context", false},
		{"both and a window", plans.Session{ID: "b", Via: []string{plans.ViaHooks, plans.ViaTranscript},
			Usage: &plans.Usage{Used: 50000, Size: 200000}}, "from hooks and its transcript", "context 25% of 200k", true},
		{"a little", plans.Session{ID: "d", Usage: &plans.Usage{Model: "gpt-5", Used: 20, Size: 258400}}, "", "gpt-5 · context <1% of 258k", true},
		{"nothing reported", plans.Session{ID: "c"}, "", "", false},
	} {
		n := render(tc.s)
		if got := text(n, `[data-testid="session-via"]`); got != tc.via {
			t.Errorf("%s: via %q, want %q", tc.name, got, tc.via)
		}
		if got := text(n, `[data-testid="session-usage"]`); got != tc.cost {
			t.Errorf("%s: usage %q, want %q", tc.name, got, tc.cost)
		}
		if got := cascadia.MustCompile(`meter[data-testid="session-fill"]`).MatchFirst(n) != nil; got != tc.meter {
			t.Errorf("%s: meter %v, want %v", tc.name, got, tc.meter)
		}
	}
}

package approval

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/plans"
)

// FuzzFeedback feeds a review's comments as a client sends them (JSON) against the plans a
// request may carry: each review is accepted or refused, never panics, and an accepted one
// points only at what the plan has, quotes it within bounds, and keeps every comment's text.
func FuzzFeedback(f *testing.F) {
	for _, seed := range []string{
		`[{"target":"entry","entry":2,"comment":"split"}]`,
		`[{"target":"line","line":3,"comment":"x"},{"comment":"whole"}]`,
		`[{"target":"call","callId":"read","comment":"which file"},{"target":"call","callId":"1","comment":"no"}]`,
		`[{"target":"entry","entry":-1,"comment":"x"}]`,
		`[{"target":"vibe","comment":"x"}]`,
		`[{"target":"line","line":99999999999,"comment":"x"}]`,
	} {
		f.Add(seed)
	}
	long := strings.Repeat("é", MaxQuote*2)
	bodies := []PlanBody{
		{Type: TypeItems, Entries: []plans.Entry{{Content: "a"}, {Content: long}}},
		{Type: TypeMarkdown, Markdown: "# Plan\n\n- a " + long + "\n- b\n"},
		{Type: TypeDAG, Calls: []byte(`[{"_id":"read","_tool":"fs.read"},{"_tool":"fs.write"},{"_id":7}]`)},
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var in []Comment
		if json.Unmarshal([]byte(raw), &in) != nil {
			return
		}
		for _, p := range bodies {
			out, err := checkFeedback(p, in)
			if err != nil {
				continue
			}
			if len(out) != len(in) {
				t.Fatalf("%d comments in, %d accepted", len(in), len(out))
			}
			calls := CallLabels(p)
			for i, c := range out {
				if c.Comment == "" || c.Comment != strings.TrimSpace(in[i].Comment) {
					t.Fatalf("comment %d: text %q from %q", i, c.Comment, in[i].Comment)
				}
				if utf8.RuneCountInString(c.Quote) > MaxQuote {
					t.Fatalf("comment %d quotes %d characters", i, utf8.RuneCountInString(c.Quote))
				}
				switch c.Target {
				case TargetPlan:
				case TargetEntry:
					if c.Entry < 1 || c.Entry > len(p.Entries) {
						t.Fatalf("entry %d of %d accepted", c.Entry, len(p.Entries))
					}
				case TargetLine:
					if c.Line < 1 || c.Line > len(MarkdownLines(p.Markdown)) || p.Type != TypeMarkdown {
						t.Fatalf("line %d accepted", c.Line)
					}
				case TargetCall:
					if _, ok := calls[c.CallID]; !ok {
						t.Fatalf("call %q accepted", c.CallID)
					}
				default:
					t.Fatalf("target %q accepted", c.Target)
				}
			}
			_ = FeedbackText("", out)
		}
	})
}

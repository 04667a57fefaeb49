package acpproxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// TestProxyCursorQuestion: cursor/ask_question, as the scripted agent sends it in the shape
// Cursor's clients document, is offered to the dashboard like a permission request; the first
// answer wins, and the agent always hears it in Cursor's nested outcome. One single-choice
// question offers its options and skipping; two questions offer only skipping (answered in the
// IDE).
func TestProxyCursorQuestion(t *testing.T) {
	for _, tc := range []struct {
		name, word string
		mode       Approvals
		ide        string                // the IDE's answer to its copy ("" leaves it unanswered)
		dash       acp.PermissionOutcome // the dashboard's answer (zero: none)
		options    string                // the offered options' ids
		want       string                // what the agent heard
		resolved   string                // the broker's last call
	}{
		{"dashboard answers first", "cursorask", ApprovalsBoth, "", acp.PermissionOutcome{Outcome: "selected", OptionID: "lite"}, "pg lite skip",
			`{"answers":[{"questionId":"db","selectedOptionIds":["lite"]}],"outcome":"answered"}`, "by dashboard: selected lite"},
		{"dashboard skips", "cursorask", ApprovalsDashboard, "", acp.PermissionOutcome{Outcome: "selected", OptionID: "skip", Feedback: "later"}, "pg lite skip",
			`{"outcome":"skipped","reason":"Skipped on the plandash dashboard: later"}`, "by dashboard: selected skip"},
		{"IDE answers first", "cursorask", ApprovalsBoth, `{"outcome":{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]}]}}`,
			acp.PermissionOutcome{}, "pg lite skip", `{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]}]}`, "by ide: selected pg"},
		{"IDE without Cursor's methods", "cursorask", ApprovalsBoth, "-32601", acp.PermissionOutcome{Outcome: "selected", OptionID: "pg"}, "pg lite skip",
			`{"answers":[{"questionId":"db","selectedOptionIds":["pg"]}],"outcome":"answered"}`, "by dashboard: selected pg"},
		{"two questions: the IDE answers", "cursorask2", ApprovalsBoth,
			`{"outcome":{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]},{"questionId":"orm","selectedOptionIds":["none","gorm"]}]}}`,
			acp.PermissionOutcome{}, "skip", `{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]},{"questionId":"orm","selectedOptionIds":["none","gorm"]}]}`, "by ide:"},
		{"two questions: the dashboard cancels", "cursorask2", ApprovalsDashboard, "", acp.PermissionOutcome{Outcome: "cancelled"}, "skip",
			`{"outcome":"cancelled"}`, "by dashboard: cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broker := newFakeBroker()
			proxy := &Proxy{Approvals: tc.mode, Broker: broker}
			r := startRun(t, proxy)
			sess := r.ide.open(false)
			var heard string
			var ideSaw bool
			answered := false
			dashAnswer := func() {
				select {
				case o := <-broker.offers:
					if err := checkAskOffer(o.req, sess, tc.options); err != nil {
						t.Error(err)
					}
					if err := o.answer(tc.dash); err != nil {
						t.Errorf("the dashboard's answer: %v", err)
					}
				case <-time.After(testTimeout):
					t.Error("nothing was offered to the dashboard")
				}
			}
			if tc.mode == ApprovalsDashboard {
				answered = true
				go dashAnswer()
			}
			promptUntilDone(t, r.ide, sess, tc.word, func(m acp.Message) {
				if m.IsRequest() && m.Method == acp.MethodCursorAskQuestion {
					ideSaw = true
					switch {
					case tc.ide == "-32601":
						r.ide.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID))
						waitIDERefused(t, proxy, m.ID)
					case tc.ide != "":
						r.ide.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, tc.ide))
					}
				}
				if s, ok := strings.CutPrefix(chunkText(m), tc.word+": "); ok {
					heard = s
				}
				if !answered && tc.dash.Outcome != "" && ideSaw {
					answered = true
					dashAnswer()
				}
			})
			if heard != tc.want {
				t.Errorf("the agent heard %s, want %s", heard, tc.want)
			}
			if ideSaw != (tc.mode == ApprovalsBoth) {
				t.Errorf("the IDE saw the question: %v, in mode %v", ideSaw, tc.mode)
			}
			if tc.dash.Outcome == "" {
				// Offered, then resolved by the IDE.
				select {
				case o := <-broker.offers:
					if err := checkAskOffer(o.req, sess, tc.options); err != nil {
						t.Error(err)
					}
				case <-time.After(testTimeout):
					t.Error("nothing was offered to the dashboard")
				}
			}
			calls := broker.waitCalls(t, 2)
			if !strings.HasSuffix(strings.TrimSpace(calls), tc.resolved) {
				t.Errorf("broker calls %q, want them to end %q", calls, tc.resolved)
			}
			if code := r.wait(); code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
}

// checkAskOffer: the question reaches the waits list as a permission request it can render and
// answer, with the options wanted.
func checkAskOffer(req PermissionRequest, sess, options string) error {
	p, err := acp.DecodeRequestPermissionParams(req.Params)
	if err != nil {
		return fmt.Errorf("the offer is not a permission request the inbox can read: %v", err)
	}
	var raw struct {
		Questions []struct {
			Question string   `json:"question"`
			Options  []string `json:"options"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(p.ToolCall.RawInput, &raw); err != nil || len(raw.Questions) == 0 || raw.Questions[0].Question != "Which database?" {
		return fmt.Errorf("the offer's rawInput %s: %v", p.ToolCall.RawInput, err)
	}
	var ids []string
	for _, o := range p.Options {
		ids = append(ids, o.OptionID)
	}
	if p.SessionID != sess || req.SessionID != sess || strings.Join(ids, " ") != options || p.ToolCall.Title == nil ||
		!strings.HasPrefix(*p.ToolCall.Title, "Cursor asks") {
		return fmt.Errorf("offered %s", req.Params)
	}
	return nil
}

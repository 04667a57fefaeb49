package acpproxy

import (
	"io"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/acp"
)

// A plan gate over ACP (claude-agent-acp's exit-plan-mode permission) rejected on the dashboard
// with feedback: the agent gets the rejecting option and the feedback in the selected outcome's
// _meta, the schema's place for it; an answer without feedback stays exactly ACP's plain form.
func TestProxyPermissionRejectCarriesFeedback(t *testing.T) {
	const planGate = `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s1",` +
		`"toolCall":{"toolCallId":"c1","title":"Ready to code?","rawInput":{"plan":"# Plan\n- a"}},"options":[` +
		`{"optionId":"acceptEdits","name":"Yes, and auto-accept edits","kind":"allow_always"},{"optionId":"plan","name":"No, keep planning","kind":"reject_once"}]}}`
	feedback := "On line 2 (\"- a\"):\n   Split it"
	for _, tc := range []struct {
		name string
		o    acp.PermissionOutcome
		want string
	}{
		{"reject with feedback", acp.PermissionOutcome{Outcome: "selected", OptionID: "plan", Feedback: feedback},
			`{"id":7,"jsonrpc":"2.0","result":{"outcome":{"_meta":{"plandash":{"feedback":"On line 2 (\"- a\"):\n   Split it"}},"optionId":"plan","outcome":"selected"}}}`},
		{"reject without", acp.PermissionOutcome{Outcome: "selected", OptionID: "plan"},
			`{"id":7,"jsonrpc":"2.0","result":{"outcome":{"optionId":"plan","outcome":"selected"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broker := newFakeBroker()
			pp := startPipes(t, &Proxy{Approvals: ApprovalsDashboard, Broker: broker})
			io.WriteString(pp.agentW, planGate+"\n")
			o := broker.offer(t)
			answered := make(chan error, 1)
			go func() { answered <- o.answer(tc.o) }() // it writes to the agent, read below
			got := readLine(t, pp.agent)
			if err := <-answered; err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("the agent got\n %s\nwant\n %s", got, tc.want)
			}
			if m, err := acp.DecodeLine([]byte(got)); err != nil || len(m) != 1 {
				t.Fatalf("the answer is not one JSON-RPC message: %v", err)
			}
		})
	}
}

// Cursor's plan gate has a reason on its rejection: the feedback goes there.
func TestCursorRejectReasonCarriesFeedback(t *testing.T) {
	got := cursorOutcome(acp.PermissionOutcome{Outcome: "selected", OptionID: cursorRejectOption, Feedback: "Split step 2"})
	if got.Outcome != acp.CursorRejected || !strings.HasSuffix(got.Reason, ": Split step 2") {
		t.Fatalf("cursor outcome %+v", got)
	}
	if got := cursorOutcome(acp.PermissionOutcome{Outcome: "selected", OptionID: cursorRejectOption}); got.Reason != "Rejected on the plandash dashboard" {
		t.Fatalf("without feedback: %+v", got)
	}
}

package cline

import (
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

// TestRealClineQuestion: the REAL Cline's model asks (ask_question) in its terminal UI; plandash
// lists the question as a wait for the terminal (a hook cannot answer it), and the wait ends
// when the person answers in the terminal.
func TestRealClineQuestion(t *testing.T) {
	r := newRig(t)
	r.srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolAskQuestion, ID: "call_ask",
		Input: map[string]any{"question": "Which parser?", "options": []any{"LL(1)", "LR(1)"}}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	x := r.cli.Interactive()
	x.Submit("ask me")
	q := waitstest.AwaitOpen(t, r.asked, waits.KindQuestion, nil)
	if q.Answerable || len(q.Questions) != 1 || len(q.Questions[0].Options) != 2 {
		t.Fatalf("question wait = %+v; want the question with its options, to answer in the terminal", q)
	}
	x.WaitScreen(time.Minute, "LR(1)")
	x.Keys("Enter")
	ended := waitstest.AwaitEnded(t, r.asked, q.ID)
	if !strings.Contains(ended.Outcome, "terminal") {
		t.Errorf("question ended with %q, want answered in the terminal", ended.Outcome)
	}
	in := waitstest.AwaitOpen(t, r.asked, waits.KindInput, func(w waits.Record) bool { return w.SessionID == q.SessionID })
	if !strings.Contains(in.Text, "Agenttest turn over.") {
		t.Errorf("input wait = %+v, want the turn's answer", in)
	}
	x.Stop(10 * time.Second)
}

package copilot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

func TestQuestions(t *testing.T) {
	qs, err := Questions(json.RawMessage(`{"question":"Which?","choices":["A","","B"],"allow_freeform":false}`))
	if err != nil || len(qs) != 1 || len(qs[0].Options) != 2 || qs[0].FreeText {
		t.Fatalf("%+v %v", qs, err)
	}
	if qs, _ := Questions(json.RawMessage(`{"question":"Why?"}`)); !qs[0].FreeText || len(qs[0].Options) != 0 {
		t.Errorf("a free question: %+v", qs)
	}
	for _, bad := range []string{`{}`, `{"question":" "}`, `[]`, `nope`} {
		if _, err := Questions(json.RawMessage(bad)); err == nil {
			t.Errorf("Questions(%s) gave no error", bad)
		}
	}
	ans := QuestionAnswer(qs, map[string][]string{"Which?": {"A", "B"}})
	if err := CheckQuestionAnswer(ans); err != nil || !strings.Contains(string(ans), answerPrefix+"A, B") {
		t.Errorf("answer %s: %v", ans, err)
	}
	if QuestionAnswer(qs, nil) != nil || CheckQuestionAnswer(nil) != nil || CheckQuestionAnswer(Answer(Decision{Deny: true, Reason: "x"})) == nil {
		t.Error("CheckQuestionAnswer")
	}
}

// TestQuestionTerminal: nobody answers before the deadline, so the hook gets nothing (Copilot's
// dialog asks) and the wait stays listed for the terminal until postToolUse says the answer.
func TestQuestionTerminal(t *testing.T) {
	ctx := context.Background()
	asked := waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)
	svc := NewService(newPlans(t), nil, Config{Asker: asked, QuestionDeadline: 50 * time.Millisecond})
	pre := []byte(`{"sessionId":"s1","cwd":"/p","toolName":"ask_user","toolArgs":{"question":"Which?","choices":["A","B"]},"plandash_event":"preToolUse"}`)
	if ans, err := svc.Handle(ctx, pre); err != nil || len(ans) != 0 {
		t.Fatalf("answer %s, %v", ans, err)
	}
	q := waitstest.AwaitOpen(t, asked, waits.KindQuestion, func(r waits.Record) bool { return !r.Answerable })
	post := []byte(`{"sessionId":"s1","cwd":"/p","toolName":"ask_user","toolArgs":{"question":"Which?","choices":["A","B"]},"toolResult":{"resultType":"success","textResultForLlm":"User selected: B"}}`)
	if _, err := svc.Handle(ctx, post); err != nil {
		t.Fatal(err)
	}
	if r := waitstest.AwaitEnded(t, asked, q.ID); r.Outcome != "answered in the terminal: User selected: B" {
		t.Errorf("ended %+v", r)
	}
	stop := []byte(`{"sessionId":"s1","cwd":"/p","stopReason":"end_turn"}`)
	if _, err := svc.Handle(ctx, stop); err != nil {
		t.Fatal(err)
	}
	in := waitstest.AwaitOpen(t, asked, waits.KindInput, nil)
	if _, err := svc.Handle(ctx, []byte(`{"sessionId":"s1","cwd":"/p","prompt":"go on"}`)); err != nil {
		t.Fatal(err)
	}
	if r := waitstest.AwaitEnded(t, asked, in.ID); r.Outcome != "the session went on" {
		t.Errorf("input wait ended %+v", r)
	}
}

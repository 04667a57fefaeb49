package qwen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
)

// TestRealQwenQuestion: the REAL Qwen Code, interactive under tmux, calls ask_user_question;
// its PermissionRequest hook (this test binary running RunHook) posts to a Service whose Asker
// keeps the question as a wait; the test answers it there, and the answer reaches the model as
// the call's result without Qwen's dialog being answered in the terminal.
func TestRealQwenQuestion(t *testing.T) {
	skipShort(t)
	asked := waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)
	svc := NewService(newPlans(t), newGate(t), Config{Host: "server", Asker: asked})
	cmd := serve(t, svc)
	srv := agenttest.NewModelServer(t)
	q := agenttest.NewQwen(t, srv, map[string]any{"hooks": map[string]any{
		"PermissionRequest": []any{map[string]any{"matcher": "^ask_user_question$", "hooks": []any{
			map[string]any{"type": "command", "command": cmd, "timeout": 120000}}}},
	}})
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolAskUserQuestion, Input: map[string]any{"questions": []any{
		map[string]any{"question": "Which parser style?", "header": "Parser", "multiSelect": false, "options": []any{
			map[string]any{"label": "Recursive descent", "description": "Hand written"},
			map[string]any{"label": "PEG", "description": "Generated"}}}}}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	x := q.Interactive()
	defer x.Stop(10 * time.Second)
	x.Submit("ask me about the parser")
	var open []waits.Record
	for end := time.Now().Add(3 * time.Minute); len(open) == 0 && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		open, _ = asked.Open(context.Background())
	}
	if len(open) != 1 || open[0].Kind != waits.KindQuestion || open[0].Questions[0].Question != "Which parser style?" {
		t.Fatalf("open waits: %+v\nscreen:\n%s", open, x.Screen())
	}
	if _, _, err := asked.Answer(context.Background(), open[0].ID, waits.Answer{By: "ann", Answers: map[string][]string{"Which parser style?": {"PEG"}}}); err != nil {
		t.Fatal(err)
	}
	r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { return len(r.ToolResults()) > 0 })
	res := r.ToolResults()[0]
	if !strings.Contains(res.Content, "**Parser**: PEG") {
		t.Errorf("ask_user_question result = %+v", res)
	}
}

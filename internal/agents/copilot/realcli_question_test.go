package copilot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

// TestRealCopilotQuestion: the REAL interactive Copilot CLI asks with ask_user; its preToolUse
// hook (this binary running RunHook against Service.Handle) holds the question as an answerable
// wait and no dialog shows; the answer given in plandash reaches the model as the call's result.
// The turn's end (agentStop) lists the session as waiting for its next prompt.
func TestRealCopilotQuestion(t *testing.T) {
	skipShort(t)
	asked := waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)
	svc := NewService(newPlans(t), newGate(t), Config{Host: "server", Asker: asked})
	hs := hookServer(t, svc)
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCopilot(t, srv, nil)
	installHooks(t, c, hs.URL, true)
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolAskUser, Input: map[string]any{
		"question": "Which database?", "choices": []string{"PostgreSQL", "SQLite"}}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	x := c.Interactive()
	defer x.Stop(10 * time.Second)
	x.Submit("ask me")
	q := waitstest.AwaitOpen(t, asked, waits.KindQuestion, nil)
	if q.Title != "Which database?" || !q.Answerable || len(q.Questions) != 1 || len(q.Questions[0].Options) != 2 || q.Agent != AgentName {
		t.Fatalf("question %+v", q)
	}
	if _, _, err := asked.Answer(context.Background(), q.ID, waits.Answer{Action: "opt-1", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { return len(r.ToolResults()) > 0 })
	if res := r.ToolResults()[0]; !strings.Contains(res.Content, answerPrefix+"SQLite") {
		t.Errorf("the model got %+v", res)
	}
	in := waitstest.AwaitOpen(t, asked, waits.KindInput, func(r waits.Record) bool { return r.SessionID == q.SessionID })
	if in.Title != "Copilot CLI waits for your next prompt" {
		t.Errorf("input wait %+v", in)
	}
	if strings.Contains(x.Screen(), "PostgreSQL") && strings.Contains(x.Screen(), "↑/↓") {
		t.Errorf("Copilot's dialog showed:\n%s", x.Screen())
	}
}

package opencode_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/agents/opencode"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

// TestRealPluginQuestion: the REAL OpenCode (`opencode serve`, whose port plandash is never
// told) loads plandash's plugin and runs its question tool; the plugin posts question.asked to a
// real plandash, which keeps it as an answerable wait; the person's answer there goes back
// through the plugin's client as OpenCode's reply, and the model's next request carries it.
// The turn over, the plugin's session.idle lists the session as waiting for its next prompt.
func TestRealPluginQuestion(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	a, base, data := servedApp(t)
	srv := agenttest.NewModelServer(t)
	o := agenttest.NewOpenCode(t, srv, nil)
	o.Env = append(o.Env, "OPENCODE_ENABLE_QUESTION_TOOL=1")
	if _, err := opencode.InstallPlugin(opencode.PluginDir(o.Dir, os.Getenv),
		opencode.PluginOptions{Server: base, TokenFile: client.TokenFile(data)}); err != nil {
		t.Fatal(err)
	}
	ask := map[string]any{"questions": []any{map[string]any{"question": "Which database should we use?", "header": "Database",
		"options": []any{map[string]any{"label": "PostgreSQL", "description": "a server"}, map[string]any{"label": "SQLite", "description": "a file"}}}}}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "question", Input: ask}}, agenttest.Turn{Text: "Agenttest turn over."})
	s := o.Serve()
	session := s.Prompt("build", "set up the storage")

	q := waitstest.AwaitOpen(t, a.Asked, waits.KindQuestion, nil)
	if q.SessionID != opencode.OpenCode.SessionKey(session) || q.AgentName != opencode.AgentTitle || !q.Answerable ||
		len(q.Questions) != 1 || len(q.Questions[0].Options) != 2 {
		t.Fatalf("kept question %+v", q)
	}
	if _, _, err := a.Asked.Answer(context.Background(), q.ID, waits.Answer{Action: "opt-1", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	ev := s.WaitEvent(2*time.Minute, opencode.EventQuestionReplied, nil)
	var rep struct {
		Answers [][]string `json:"answers"`
	}
	if err := json.Unmarshal(ev.Properties, &rep); err != nil || len(rep.Answers) != 1 || len(rep.Answers[0]) != 1 || rep.Answers[0][0] != "SQLite" {
		t.Errorf("question.replied %s (%v)", ev.Properties, err)
	}
	srv.WaitRequest(2*time.Minute, func(req agenttest.Request) bool {
		for _, tr := range req.ToolResults() {
			if strings.Contains(tr.Content, "SQLite") {
				return true
			}
		}
		return false
	})
	in := waitstest.AwaitOpen(t, a.Asked, waits.KindInput, nil)
	if in.SessionID != opencode.OpenCode.SessionKey(session) || in.Title != "OpenCode waits for your next prompt" {
		t.Errorf("input wait %+v", in)
	}
}

package gemini

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

// askArgs is an ask_user call as a model makes it.
var askArgs = map[string]any{"questions": []any{map[string]any{"header": "Database", "question": "Which database?", "type": "choice",
	"options": []any{map[string]any{"label": "PostgreSQL", "description": "a server"}, map[string]any{"label": "SQLite", "description": "a file"}}}}}

// questionRig is a real HTTP server around a Service with a real waits.Asked on SQLite, and
// the interactive Gemini CLI with plandash's hooks as Install writes them (this test binary
// as the plandash command), whose model asks, then ends its turn, then ends the next.
func questionRig(t *testing.T, cfg Config) (*agenttest.Gemini, *agenttest.ModelServer, *waits.Asked) {
	t.Helper()
	asked := waits.NewAsked(openDB(t).Waits(), nil, nil)
	cfg.Host, cfg.Asker = "server", asked
	svc := NewService(newPlans(t), newGate(t), cfg)
	hs := agenttest.HookServer(t, svc)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	settings, _, err := mergeHooks(nil, desired(InstallOptions{Command: exe}))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(settings, &v); err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewModelServer(t)
	cli := agenttest.NewGemini(t, srv, v)
	cli.Env = append(cli.Env, envHookURL+"="+hs.URL)
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolAskUser, Input: askArgs}},
		agenttest.Turn{Text: "Agenttest turn over."}, agenttest.Turn{Text: "Second turn over."})
	return cli, srv, asked
}

// askUserResponse is ask_user's result as the model's next request carries it.
func askUserResponse(t *testing.T, srv *agenttest.ModelServer) string {
	t.Helper()
	r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool {
		for _, fr := range r.FunctionResponses() {
			if fr.Name == ToolAskUser {
				return true
			}
		}
		return false
	})
	for _, fr := range r.FunctionResponses() {
		if fr.Name == ToolAskUser {
			return string(fr.Response)
		}
	}
	return ""
}

// TestRealGeminiQuestion: the real interactive Gemini CLI asks with ask_user; its BeforeTool
// hook (this binary running RunHook against Service.Handle) holds the question as an answerable
// wait and no dialog shows; the answer given in plandash reaches the model as the call's result,
// carrying {"answers":{"0":"SQLite"}}. The turn's end (AfterAgent) lists the session as waiting
// for its next prompt with the last response; the next prompt ends that wait.
func TestRealGeminiQuestion(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	cli, srv, asked := questionRig(t, Config{})
	x := cli.Interactive("-m", geminiModel)
	x.Submit("ask me")
	q := waitstest.AwaitOpen(t, asked, waits.KindQuestion, nil)
	if q.Title != "Which database?" || !q.Answerable || len(q.Questions) != 1 || len(q.Questions[0].Options) != 2 || q.Agent != AgentName {
		t.Fatalf("question %+v", q)
	}
	if _, _, err := asked.Answer(context.Background(), q.ID, waits.Answer{Action: "opt-1", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	if got := askUserResponse(t, srv); !strings.Contains(got, `{\"answers\":{\"0\":\"SQLite\"}}`) {
		t.Errorf("the model got %s", got)
	}
	in := waitstest.AwaitOpen(t, asked, waits.KindInput, func(r waits.Record) bool { return r.SessionID == q.SessionID })
	if in.Text != "Agenttest turn over." || in.Title != "Gemini CLI waits for your next prompt" {
		t.Errorf("input wait %+v", in)
	}
	x.WaitScreen(time.Minute, "Agenttest turn over.")
	before := len(srv.Requests())
	x.SubmitUntil("go on", func() bool { return len(srv.Requests()) > before })
	if r := waitstest.AwaitWentOn(t, asked, in); !r.Open() && r.Outcome != "the session went on" {
		t.Errorf("input wait ended %+v", r)
	}
	x.WaitScreen(time.Minute, "Second turn over.")
	x.Stop(20 * time.Second)
}

// TestRealGeminiQuestionTerminal: nobody answers in plandash before the deadline; the hook lets
// Gemini's dialog ask, the wait stays listed as answered only in the terminal, and the person's
// choice in the dialog ends it (AfterTool), saying what they chose.
func TestRealGeminiQuestionTerminal(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	cli, srv, asked := questionRig(t, Config{QuestionDeadline: 2 * time.Second})
	x := cli.Interactive("-m", geminiModel)
	x.Submit("ask me")
	q := waitstest.AwaitOpen(t, asked, waits.KindQuestion, func(r waits.Record) bool { return !r.Answerable })
	if q.Title != "Which database?" || !q.Deadline.IsZero() {
		t.Fatalf("terminal question %+v", q)
	}
	x.WaitScreen(time.Minute, "Which database?", "2.  SQLite")
	x.Answer("Enter to select", time.Minute, "Down", "Enter")
	if r := waitstest.AwaitEnded(t, asked, q.ID); r.Outcome != "answered in the terminal: SQLite" || r.EndedBy != TerminalDecider {
		t.Errorf("question ended %+v", r)
	}
	if got := askUserResponse(t, srv); !strings.Contains(got, `{\"answers\":{\"0\":\"SQLite\"}}`) {
		t.Errorf("the model got %s", got)
	}
	x.Stop(20 * time.Second)
}

package codex

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

// askArgs is a request_user_input call as a model makes it.
var askArgs = map[string]any{"questions": []any{map[string]any{"id": "db", "header": "Database", "question": "Which database?",
	"options": []any{map[string]any{"label": "PostgreSQL", "description": "a server"}, map[string]any{"label": "SQLite", "description": "a file"}}}}}

// questionCodex is the interactive Codex with plandash's hooks exactly as Install writes them
// (this test binary as the plandash command, posting to rig), request_user_input enabled in
// Default mode, and a model that asks, then ends its turn, then ends the next.
func questionCodex(t *testing.T, rig *hookRig) (*agenttest.Codex, *agenttest.ModelServer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hooks, _, err := mergeHooks(nil, &InstallOptions{Command: exe, Timeout: 600})
	if err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCodex(t, srv, "[features]\ndefault_mode_request_user_input = true\n", json.RawMessage(hooks))
	c.Env = append(c.Env, envHookURL+"="+rig.url+"/api/v1/hooks/codex")
	srv.Script(agenttest.Turn{Text: "I need to know the database.", ToolUse: &agenttest.ToolUse{Name: ToolRequestUserInput, Input: askArgs}},
		agenttest.Turn{Text: "Agenttest turn over."}, agenttest.Turn{Text: "Second turn over."})
	return c, srv
}

// TestRealCodexQuestion: the real interactive Codex asks with request_user_input; its PreToolUse
// hook (this binary running RunHook against Service.Handle on a real SQLite store) holds the
// question as an answerable wait; the answer given in plandash reaches the model in its next
// request as the call's output, carrying {"answers":{"db":{"answers":["SQLite"]}}}. The turn's
// end lists the session as waiting for its next prompt with Codex's last message, and typing
// the next prompt ends that wait.
func TestRealCodexQuestion(t *testing.T) {
	needRealCLI(t)
	rig := newHookRigWith(t, Config{})
	c, srv := questionCodex(t, rig)
	x := c.Interactive()
	x.Submit("ask me")

	q := waitstest.AwaitOpen(t, rig.asked, waits.KindQuestion, nil)
	if q.Title != "Which database?" || !q.Answerable || len(q.Questions) != 1 || len(q.Questions[0].Options) != 2 ||
		!q.Questions[0].FreeText || q.SessionID == "" || q.Agent != AgentName {
		t.Fatalf("question %+v", q)
	}
	if _, _, err := rig.asked.Answer(context.Background(), q.ID, waits.Answer{Action: "opt-1", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	second := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { return !r.Side && len(r.FunctionCallOutputs()) > 0 })
	outs := second.FunctionCallOutputs()
	if len(outs) != 1 || !strings.Contains(outs[0].Output, `{"answers":{"db":{"answers":["SQLite"]}}}`) {
		t.Fatalf("the model got %+v", outs)
	}
	in := waitstest.AwaitOpen(t, rig.asked, waits.KindInput, func(r waits.Record) bool { return r.SessionID == q.SessionID })
	if in.Text != "Agenttest turn over." || in.Title != "Codex waits for your next prompt" {
		t.Errorf("input wait %+v", in)
	}
	x.WaitScreen(time.Minute, "Agenttest turn over.")
	x.Submit("go on")
	if r := waitstest.AwaitWentOn(t, rig.asked, in); !r.Open() && r.Outcome != "the session went on" {
		t.Errorf("input wait ended %+v", r)
	}
	x.WaitScreen(time.Minute, "Second turn over.")
	x.Stop(20 * time.Second)
}

// TestRealCodexQuestionTerminal: nobody answers in plandash before the question's deadline; the
// hook lets Codex's picker ask, the wait stays listed as answered only in the terminal, and the
// person's choice in the picker ends it (PostToolUse), saying what they chose.
func TestRealCodexQuestionTerminal(t *testing.T) {
	needRealCLI(t)
	rig := newHookRigWith(t, Config{QuestionDeadline: 2 * time.Second})
	c, srv := questionCodex(t, rig)
	x := c.Interactive()
	x.Submit("ask me")

	q := waitstest.AwaitOpen(t, rig.asked, waits.KindQuestion, func(r waits.Record) bool { return !r.Answerable })
	if q.Title != "Which database?" || !q.Deadline.IsZero() {
		t.Fatalf("terminal question %+v", q)
	}
	if _, _, err := rig.asked.Answer(context.Background(), q.ID, waits.Answer{Action: "opt-0", By: "ann"}); err == nil {
		t.Error("a terminal-only question was answered in plandash")
	}
	x.WaitScreen(time.Minute, "Which database?", "2. SQLite")
	x.Answer("enter to submit answer", time.Minute, "Down", "Enter")
	if r := waitstest.AwaitEnded(t, rig.asked, q.ID); r.Outcome != "answered in the terminal: SQLite" || r.EndedBy != TerminalDecider {
		t.Errorf("question ended %+v", r)
	}
	second := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { return !r.Side && len(r.FunctionCallOutputs()) > 0 })
	if outs := second.FunctionCallOutputs(); len(outs) != 1 || outs[0].Output != `{"answers":{"db":{"answers":["SQLite"]}}}` {
		t.Errorf("the model got %+v", outs)
	}
	x.Stop(20 * time.Second)
}

// TestRealCodexQuestionExec: `codex exec`, which refuses request_user_input itself ("not
// supported in exec mode"), still runs the PreToolUse hook first: the question waits in
// plandash, and the answer given there reaches the model.
func TestRealCodexQuestionExec(t *testing.T) {
	needRealCLI(t)
	rig := newHookRigWith(t, Config{})
	c, srv := questionCodex(t, rig)
	done := make(chan agenttest.Result, 1)
	go func() { done <- c.Exec(3*time.Minute, "ask me") }()
	q := waitstest.AwaitOpen(t, rig.asked, waits.KindQuestion, nil)
	if _, _, err := rig.asked.Answer(context.Background(), q.ID, waits.Answer{Action: "opt-0", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.Err != nil {
		t.Fatalf("codex exec: %v\nstderr: %s", res.Err, res.Stderr)
	}
	main := srv.MainRequests()
	if len(main) < 2 {
		t.Fatalf("requests:\n%s", srv.Summary())
	}
	if outs := main[1].FunctionCallOutputs(); len(outs) != 1 || !strings.Contains(outs[0].Output, `{"answers":{"db":{"answers":["PostgreSQL"]}}}`) {
		t.Errorf("the model got %+v", outs)
	}
}

package droid

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

// envHookURL, when set, makes the test binary act as `plandash hook droid` posting to that URL:
// the real Droid runs it as its hook command.
const envHookURL = "PLANDASH_TEST_DROID_HOOK_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(envHookURL); url != "" {
		if err := RunHook(context.Background(), os.Stdin, os.Stdout, httpPoster{URL: url}, HookOptions{Host: "agent-box", Stderr: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// httpPoster is agenttest.Poster: POST the payload, return the body.
type httpPoster = agenttest.Poster

// TestRealDroid: the REAL Droid CLI (interactive, spec mode, under tmux, offline against the
// scripted model) with the hooks `plandash install droid --gate` writes, each running this test
// binary as `plandash hook droid` against a real HTTP server around a Service on a real gate,
// waits and SQLite store. In one session the model writes its todo list (it reaches the plans
// service), proposes a spec that the test rejects (the reason reaches the model, Droid stays in
// spec mode), proposes it again and the test approves (Droid leaves spec mode), then asks a
// question that the test answers in plandash (the answer reaches the model, no dialog shows).
func TestRealDroid(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	db := agenttest.SQLite(t)
	g := agenttest.Gate(t)
	created := make(chan approval.Request, 4)
	g.OnChange(func(c approval.Change) {
		if c.Request != nil && !c.Request.Decided() {
			created <- *c.Request
		}
	})
	p := agenttest.Plans(t)
	asked := waits.NewAsked(db.Waits(), nil, nil)
	svc := NewService(p, g, Config{Host: "server", Asker: asked})
	hs := agenttest.HookServer(t, svc)

	srv := agenttest.NewModelServer(t)
	cli := agenttest.NewDroid(t, srv, nil)
	settings := filepath.Join(cli.Home, ".factory", "settings.json")
	cmd := envHookURL + "=" + agenttest.ShellQuote(hs.URL) + " " + agenttest.ShellQuote(os.Args[0])
	// The hooks as Install writes them, with this test binary as the command.
	if _, err := Install(settings, InstallOptions{Command: "plandash", Gate: true, GateTimeout: 300}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, bytes.ReplaceAll(b, []byte(`"plandash hook droid"`), []byte(jsonString(cmd+" hook droid"))), 0o644); err != nil {
		t.Fatal(err)
	}

	const spec = "# Parser spec\n\n1. Tokenize\n2. Parse\n"
	srv.Script(
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolTodoWrite, Input: map[string]any{
			"todos": "1. [in_progress] Read the grammar\n2. [pending] Write the parser"}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolExitSpecMode, ID: "toolu_spec_1", Input: map[string]any{"plan": spec}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolExitSpecMode, ID: "toolu_spec_2", Input: map[string]any{"plan": spec, "title": "Parser"}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolAskUser, ID: "toolu_ask", Input: map[string]any{
			"questionnaire": "1. [question] Which database?\n[topic] DB\n[option] SQLite\n[option] Postgres"}}},
		agenttest.Turn{Text: "Agenttest turn over."},
	)
	x := cli.Interactive("--use-spec")
	x.Submit("plan the parser")

	decide := func(action approval.Action) approval.Request {
		t.Helper()
		select {
		case req := <-created:
			if !strings.Contains(req.Plan.Markdown, "1. Tokenize") || !strings.Contains(req.Context, "agent-box") {
				t.Fatalf("request without the spec or the hook's host: %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, approval.DecisionInput{Action: action, By: "ann", Comment: "Split step 2 first"}); err != nil {
				t.Fatal(err)
			}
			return req
		case <-time.After(3 * time.Minute):
			t.Fatalf("no spec reached the gate; screen:\n%s\nrequests:\n%s", x.Screen(), srv.Summary())
		}
		return approval.Request{}
	}
	req := decide(approval.Reject)
	res := resultOf(t, srv, "toolu_spec_1")
	if !strings.Contains(res.Content, "Split step 2 first") || strings.Contains(res.Content, `"approved":true`) {
		t.Errorf("rejected spec's result = %+v, want the reason", res)
	}
	todos, err := p.Plan(context.Background(), req.SessionID, PlanTodos)
	if err != nil || len(todos.Entries) != 2 || todos.Entries[0].Status != plans.StatusInProgress || todos.Entries[1].Content != "Write the parser" {
		t.Errorf("todo list in plandash = %+v, %v", todos, err)
	}
	decide(approval.Approve)
	if res := resultOf(t, srv, "toolu_spec_2"); !strings.Contains(res.Content, `"approved":true`) {
		t.Errorf("approved spec's result = %+v", res)
	}

	q := waitstest.AwaitOpen(t, asked, waits.KindQuestion, nil)
	if q.Title != "Which database?" || len(q.Questions) != 1 || len(q.Questions[0].Options) != 2 {
		t.Fatalf("question in plandash = %+v", q)
	}
	if _, _, err := asked.Answer(context.Background(), q.ID, waits.Answer{Answers: map[string][]string{"Which database?": {"SQLite"}}, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	if res := resultOf(t, srv, "toolu_ask"); !strings.Contains(res.Content, "Which database? → SQLite") {
		t.Errorf("question's result = %+v", res)
	}
	spec2, err := p.Plan(context.Background(), req.SessionID, PlanSpec)
	if err != nil || !strings.Contains(spec2.Markdown, "1. Tokenize") || !strings.Contains(string(spec2.Meta), "approved") {
		t.Errorf("spec in plandash = %+v, %v", spec2, err)
	}
}

// resultOf waits for the request that carries the result of call id. Droid sends its own
// reminders as user messages after a tool's result, so every message is searched, not only the
// last one as agenttest.Request.ToolResult does.
func resultOf(t *testing.T, srv *agenttest.ModelServer, id string) toolResult {
	t.Helper()
	r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { _, ok := findResult(r.Body, id); return ok })
	res, _ := findResult(r.Body, id)
	return res
}

type toolResult struct {
	IsError bool
	Content string
}

func findResult(body []byte, id string) (toolResult, bool) {
	var in struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &in) != nil {
		return toolResult{}, false
	}
	for _, m := range in.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == id {
				text := string(b.Content)
				_ = json.Unmarshal(b.Content, &text) // a string's text; blocks stay as JSON
				return toolResult{IsError: b.IsError, Content: text}, true
			}
		}
	}
	return toolResult{}, false
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

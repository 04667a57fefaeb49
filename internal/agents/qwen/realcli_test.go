package qwen

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
)

// envHookURL, when set, makes the test binary act as `plandash hook qwen` posting to that URL:
// the real Qwen Code runs it as its hook.
const envHookURL = "PLANDASH_TEST_QWEN_HOOK_URL"

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

// serve runs svc behind a real HTTP server, as plandash's hook endpoint does, and returns the
// hook command the real CLI runs: this test binary posting there.
func serve(t *testing.T, svc *Service) string {
	t.Helper()
	hs := agenttest.HookServer(t, svc)
	return envHookURL + "=" + agenttest.ShellQuote(hs.URL) + " " + agenttest.ShellQuote(os.Args[0])
}

func skipShort(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
}

// TestRealQwenTodos: the REAL Qwen Code (one-shot, yolo) calls todo_write; its PostToolUse
// hook (this test binary running RunHook) posts to a real HTTP server around a Service on a
// real SQLite store, and the list shows as the session's plan.
func TestRealQwenTodos(t *testing.T) {
	skipShort(t)
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "server"})
	cmd := serve(t, svc)
	group := func(matcher string) []any {
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 30}}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		return []any{g}
	}
	srv := agenttest.NewModelServer(t)
	q := agenttest.NewQwen(t, srv, map[string]any{
		"hooks": map[string]any{"SessionStart": group(""), "UserPromptSubmit": group(""), "Stop": group(""),
			"PostToolUse": group(planTools)},
		"tools": map[string]any{"todoWrite": map[string]any{"enabled": true}},
	})
	todos := []any{
		map[string]any{"id": "1", "content": "Read the parser", "status": "completed"},
		map[string]any{"id": "2", "content": "Write the tokenizer", "status": "in_progress"},
		map[string]any{"id": "3", "content": "Fuzz it", "status": "pending", "blockedBy": []any{"2"}},
	}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolTodoWrite, Input: map[string]any{"todos": todos}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	res := q.Prompt(3*time.Minute, "plan the parser", "--approval-mode", "yolo")
	if res.Err != nil {
		t.Fatalf("qwen: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	checkTodos(t, p, "agent-box")

	// The same session, found in the chat file the real CLI wrote, with no hook.
	disc := newPlans(t)
	discover(t, NewService(disc, nil, Config{Host: "agent-box"}), ChatDir(func(k string) string {
		return map[string]string{"HOME": q.Home}[k]
	}))
	checkTodos(t, disc, "agent-box")
}

// TestRealQwenGate: the REAL Qwen Code, interactive under tmux in plan mode, calls
// exit_plan_mode; its PermissionRequest hook (this test binary running RunHook) posts to a real
// HTTP server around a Service on a real gate and SQLite store, and the test decides. Reject:
// the reason reaches the model as the call's error, with no dialog shown. Approve: Qwen Code's
// own dialog then asks, the test confirms it there, and the model hears "User approved".
func TestRealQwenGate(t *testing.T) {
	skipShort(t)
	for _, tt := range []struct {
		action approval.Action
		want   string
	}{
		{approval.Reject, "Split step 2 first"},
		{approval.Approve, "User approved"},
	} {
		t.Run(string(tt.action), func(t *testing.T) {
			g := newGate(t)
			created := make(chan approval.Request, 4)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			p := newPlans(t)
			svc := NewService(p, g, Config{Host: "server"})
			cmd := serve(t, svc)
			srv := agenttest.NewModelServer(t)
			q := agenttest.NewQwen(t, srv, map[string]any{"hooks": map[string]any{
				"PermissionRequest": []any{map[string]any{"matcher": "^exit_plan_mode$", "hooks": []any{
					map[string]any{"type": "command", "command": cmd, "timeout": 120000}}}},
			}})
			plan := "# Parser plan\n\n1. Tokenize\n2. Parse\n"
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolExitPlanMode, Input: map[string]any{"plan": plan}}},
				agenttest.Turn{Text: "Agenttest turn over."})
			x := q.Interactive("--approval-mode", "plan")
			defer x.Stop(10 * time.Second)
			x.Submit("plan the parser")
			var req approval.Request
			select {
			case req = <-created:
			case <-time.After(3 * time.Minute):
				t.Fatalf("no request reached the gate; screen:\n%s\nrequests:\n%s", x.Screen(), srv.Summary())
			}
			if !strings.Contains(req.Plan.Markdown, "1. Tokenize") || !strings.Contains(req.Context, "agent-box") || req.Agent != AgentTitle {
				t.Fatalf("request: %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, approval.DecisionInput{Action: tt.action, By: "ann", Comment: "Split step 2 first"}); err != nil {
				t.Fatal(err)
			}
			if tt.action == approval.Approve {
				x.WaitScreen(time.Minute, "Would you like to proceed?")
				x.Answer("Would you like to proceed?", time.Minute, "Enter")
			}
			r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { return len(r.ToolResults()) > 0 })
			res := r.ToolResults()[0]
			if !strings.Contains(res.Content, tt.want) || res.IsError != (tt.action == approval.Reject) {
				t.Errorf("exit_plan_mode result = %+v, want %q (error %v)", res, tt.want, tt.action == approval.Reject)
			}
		})
	}
}

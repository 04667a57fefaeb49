package crush

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

// envHookURL, when set, makes the test binary act as `plandash hook crush` posting to that URL:
// the real Crush runs it as its PreToolUse hook.
const envHookURL = "PLANDASH_TEST_CRUSH_HOOK_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(envHookURL); url != "" {
		err := RunHook(context.Background(), os.Stdin, os.Stdout, httpPoster{URL: url}, HookOptions{Host: "agent-box", Stderr: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// httpPoster is agenttest.Poster: POST the payload, return the body.
type httpPoster = agenttest.Poster

// rig is a real HTTP server around a Service (real plans.Service and waits.Asked on SQLite)
// and Crush with plandash's hook as Install writes it, the command being a script named
// plandash that runs this test binary as the hook.
func rig(t *testing.T, cfg Config, g Gate) (*agenttest.Crush, *agenttest.ModelServer, *plans.Service, *waits.Asked) {
	t.Helper()
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	asked := waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)
	cfg.Host, cfg.Asker = "server", asked
	p := newPlans(t)
	svc := NewService(p, g, cfg)
	hs := agenttest.HookServer(t, svc)
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCrush(t, srv, nil)
	bin := filepath.Join(t.TempDir(), "plandash")
	script := "#!/bin/sh\nexec env " + envHookURL + "=" + agenttest.ShellQuote(hs.URL) + " " + agenttest.ShellQuote(os.Args[0]) + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if rep, err := Install(c.Config, InstallOptions{Command: bin, Timeout: 300, Gate: g != nil}); err != nil || !rep.Changed {
		t.Fatalf("install: %+v %v", rep, err)
	}
	return c, srv, p, asked
}

// TestRealCrushTodos: the REAL Crush (`crush run`, a custom anthropic provider pointing at
// agenttest's scripted model) writes its todo list twice with the todos tool; the PreToolUse
// hook plandash's Install wrote runs RunHook, and the list shows in a real plans.Service, the
// second call replacing the first.
func TestRealCrushTodos(t *testing.T) {
	c, srv, p, _ := rig(t, Config{}, nil)
	todo := func(content, status, active string) map[string]any {
		return map[string]any{"content": content, "status": status, "active_form": active}
	}
	srv.Script(
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolTodos, Input: map[string]any{"todos": []any{
			todo("Read the parser", "in_progress", "Reading the parser"), todo("Write the tokenizer", "pending", "Writing the tokenizer")}}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolTodos, Input: map[string]any{"todos": []any{
			todo("Read the parser", "completed", "Reading the parser"), todo("Write the tokenizer", "in_progress", "Writing the tokenizer")}}}},
		agenttest.Turn{Text: "Agenttest turn over."},
	)
	res := c.Run(3*time.Minute, "plan the parser")
	if res.Err != nil {
		t.Fatalf("crush run: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	d := onlySession(t, p)
	if d.Session.Agent != AgentName || d.Session.Cwd != c.Dir || d.Session.Host != "agent-box" {
		t.Errorf("session: %+v", d.Session)
	}
	if len(d.Plans) != 1 || d.Plans[0].ID != PlanTodos {
		t.Fatalf("plans: %+v", d.Plans)
	}
	var got []string
	for _, e := range d.Plans[0].Entries {
		got = append(got, e.Content+"="+e.Status)
	}
	if want := []string{"Read the parser=completed", "Write the tokenizer=in_progress"}; !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
}

// TestRealCrushQuestion: the REAL interactive Crush asks with its question tool; its PreToolUse
// hook (this binary running RunHook against Service.Handle) holds the question as an
// answerable wait and no dialog shows; the answer given in plandash reaches the model as the
// call's result.
func TestRealCrushQuestion(t *testing.T) {
	c, srv, _, asked := rig(t, Config{}, nil)
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolQuestion, Input: map[string]any{"questions": []any{
		map[string]any{"type": "single_choice", "question": "Which database?", "description": "Where the data lives.",
			"choices": []any{map[string]any{"id": "pg", "label": "PostgreSQL"}, map[string]any{"id": "lite", "label": "SQLite"}}}}}}},
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
	res := r.ToolResults()[0]
	if !strings.Contains(res.Content, "Q1: Which database?") || !strings.Contains(res.Content, `User selected: ["SQLite"]`) {
		t.Errorf("the model got %+v", res)
	}
	x.WaitScreen(time.Minute, "Agenttest turn over.")
}

// TestRealCrushPermission: with install --gate, the REAL interactive Crush's bash calls wait at
// plandash's gate before its own permission prompt: a rejection blocks the call and its reason
// reaches the model; an approval runs it with no prompt shown.
func TestRealCrushPermission(t *testing.T) {
	for _, action := range []approval.Action{approval.Reject, approval.Approve} {
		t.Run(string(action), func(t *testing.T) {
			g := agenttest.Gate(t)
			created := make(chan approval.Request, 4)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			c, srv, _, _ := rig(t, Config{}, g)
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "bash", Input: map[string]any{
				"command": "echo hello-from-crush > out.txt", "description": "Write a file"}}},
				agenttest.Turn{Text: "Agenttest turn over."})
			x := c.Interactive()
			defer x.Stop(10 * time.Second)
			x.Submit("write the file")
			var req approval.Request
			select {
			case req = <-created:
			case <-time.After(2 * time.Minute):
				t.Fatalf("no request reached the gate; screen:\n%s", x.Screen())
			}
			if !strings.Contains(req.Title, "echo hello-from-crush") || !strings.Contains(req.Plan.Markdown, `"command"`) {
				t.Fatalf("request %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, approval.DecisionInput{Action: action, By: "ann", Comment: "Not in this repo"}); err != nil {
				t.Fatal(err)
			}
			r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { return len(r.ToolResults()) > 0 })
			res := r.ToolResults()[0]
			_, statErr := os.Stat(filepath.Join(c.Dir, "out.txt"))
			switch action {
			case approval.Reject:
				if !res.IsError || !strings.Contains(res.Content, "Not in this repo") || statErr == nil {
					t.Errorf("rejected call: result %+v, file written %v", res, statErr == nil)
				}
			default:
				if res.IsError || statErr != nil {
					t.Errorf("approved call: result %+v, file: %v; screen:\n%s", res, statErr, x.Screen())
				}
			}
		})
	}
}

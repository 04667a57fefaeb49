package copilot

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
)

// envHookURL, when set, makes the test binary act as `plandash hook copilot` posting to that
// URL: the real Copilot CLI runs it as its hooks.
const envHookURL = "PLANDASH_TEST_COPILOT_HOOK_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(envHookURL); url != "" {
		home, _ := os.UserHomeDir()
		err := RunHook(context.Background(), os.Stdin, os.Stdout, httpPoster{URL: url}, HookOptions{
			Event: os.Getenv(EnvEvent), NoGate: os.Getenv(EnvNoGate) == "1", Host: "agent-box", CopilotHome: filepath.Join(home, ".copilot"), Stderr: os.Stderr})
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

// hookServer serves svc as the hook endpoint.
func hookServer(t *testing.T, svc *Service) *httptest.Server {
	hs := agenttest.HookServer(t, svc)
	return hs
}

// installHooks installs plandash's hooks into the CLI's user settings with Install itself; the
// command is a script named plandash that runs this test binary as the hook.
func installHooks(t *testing.T, c *agenttest.Copilot, url string, gate bool) {
	bin := filepath.Join(t.TempDir(), "plandash")
	script := "#!/bin/sh\nexec env " + envHookURL + "=" + agenttest.ShellQuote(url) + " " + agenttest.ShellQuote(os.Args[0]) + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(SettingsPath(c.Home, ""), InstallOptions{Command: bin, Gate: gate, GateTimeout: 300})
	if err != nil || !rep.Changed {
		t.Fatalf("install: %+v %v", rep, err)
	}
}

func skipShort(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
}

// TestRealCopilotTodos: the REAL Copilot CLI (no GitHub login: its custom-provider mode against
// agenttest's scripted model) writes its todo list with the sql tool; the hooks plandash's
// Install wrote run RunHook, which reads the list from the session database, and the Service
// shows it in a real plans.Service on SQLite, updated as the model changes it.
func TestRealCopilotTodos(t *testing.T) {
	skipShort(t)
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "server"})
	hs := hookServer(t, svc)
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCopilot(t, srv, nil)
	installHooks(t, c, hs.URL, false)
	srv.Script(
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "sql", Input: map[string]any{"description": "Add todos",
			"query": "INSERT INTO todos (id, title, description) VALUES ('read', 'Reading the parser', 'read it'), ('tok', 'Writing the tokenizer', 'tokens'), ('fuzz', 'Fuzzing it', '')"}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "sql", Input: map[string]any{"description": "Progress",
			"query": "UPDATE todos SET status = CASE id WHEN 'read' THEN 'done' WHEN 'tok' THEN 'in_progress' ELSE 'blocked' END; INSERT INTO todo_deps (todo_id, depends_on) VALUES ('fuzz', 'tok')"}}},
		agenttest.Turn{Text: "Agenttest turn over."},
	)
	res := c.Prompt(3*time.Minute, "plan the parser")
	if res.Err != nil {
		t.Fatalf("copilot -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	ctx := context.Background()
	list, err := p.Sessions(ctx, 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %+v %v", list, err)
	}
	d, err := p.Session(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Session.ID, SessionPrefix) || d.Session.Agent != AgentName || d.Session.Cwd != c.Dir || !d.Session.Ended {
		t.Errorf("session: %+v", d.Session)
	}
	if len(d.Plans) != 1 || d.Plans[0].ID != PlanTodos {
		t.Fatalf("plans: %+v", d.Plans)
	}
	var got []string
	for _, e := range d.Plans[0].Entries {
		got = append(got, e.Content+"="+e.Status)
	}
	want := []string{"Reading the parser=completed", "Writing the tokenizer=in_progress", "Fuzzing it=pending"}
	if !reflect.DeepEqual(got, want) || !strings.Contains(string(d.Plans[0].Entries[2].Meta), `"dependsOn":["tok"]`) ||
		!strings.Contains(string(d.Plans[0].Entries[2].Meta), `"status":"blocked"`) {
		t.Errorf("entries %v; last meta %s", got, d.Plans[0].Entries[2].Meta)
	}
}

// TestRealCopilotGate: the REAL Copilot CLI in plan mode (interactive, under tmux) writes
// plan.md and calls exit_plan_mode; its preToolUse hook (this test binary running RunHook)
// reads plan.md and posts it to a Service on a real gate; the test decides. Reject: the reason
// reaches the model as the call's denial and Copilot's menu never shows. Approve: the call goes
// on to Copilot CLI's own "Plan Ready for Review" menu in the terminal.
func TestRealCopilotGate(t *testing.T) {
	skipShort(t)
	for _, action := range []approval.Action{approval.Reject, approval.Approve} {
		t.Run(string(action), func(t *testing.T) {
			g := newGate(t)
			created := make(chan approval.Request, 4)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			svc := NewService(newPlans(t), g, Config{Host: "server"})
			hs := hookServer(t, svc)
			srv := agenttest.NewModelServer(t)
			c := agenttest.NewCopilot(t, srv, nil)
			installHooks(t, c, hs.URL, true)
			srv.Respond(func(r agenttest.Request) (agenttest.Turn, bool) {
				m := planRE.FindStringSubmatch(string(r.Body))
				if m == nil || strings.Contains(string(r.Body), "toolu_agenttest") {
					return agenttest.Turn{}, false
				}
				return agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "create", Input: map[string]any{
					"path": m[1], "file_text": "# Parser plan\n\n1. Tokenize\n2. Parse\n"}}}, true
			})
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolExitPlanMode, Input: map[string]any{"summary": "- Tokenize\n- Parse"}}},
				agenttest.Turn{Text: "Agenttest turn over."})

			x := c.Interactive("--plan")
			defer x.Stop(10 * time.Second)
			x.Submit("plan the parser")
			var req approval.Request
			select {
			case req = <-created:
			case <-time.After(3 * time.Minute):
				t.Fatalf("no request reached the gate; screen:\n%s\nrequests:\n%s", x.Screen(), srv.Summary())
			}
			if !strings.Contains(req.Plan.Markdown, "1. Tokenize") || !strings.Contains(req.Context, "agent-box") || req.Title != "Plan: Parser plan" {
				t.Fatalf("request without the plan read by the hook: %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, approval.DecisionInput{Action: action, By: "ann", Comment: "Split step 2 first"}); err != nil {
				t.Fatal(err)
			}
			if action == approval.Approve {
				x.WaitScreen(2*time.Minute, "Plan Ready for Review")
				return
			}
			r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool {
				return strings.Contains(string(r.Body), "Split step 2 first")
			})
			if res := r.ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "Denied by preToolUse hook: Split step 2 first") {
				t.Errorf("exit_plan_mode's result: %+v", res)
			}
			if strings.Contains(x.Screen(), "Plan Ready for Review") {
				t.Errorf("Copilot's own menu showed after a rejection:\n%s", x.Screen())
			}
		})
	}
}

package gemini

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
)

// envHookURL, when set, makes the test binary act as `plandash hook gemini` posting to that
// URL: the real Gemini CLI runs it as its BeforeTool hook.
const envHookURL = "PLANDASH_TEST_GEMINI_HOOK_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(envHookURL); url != "" {
		err := RunHook(context.Background(), os.Stdin, os.Stdout, httpPoster{URL: url}, HookOptions{Host: "agent-box", PlansDir: os.Getenv("GEMINI_PLANS_DIR")})
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

// TestRealGeminiGate: the REAL Gemini CLI in plan mode writes a plan and calls exit_plan_mode;
// its BeforeTool hook (this test binary running RunHook) posts to a real HTTP server around a
// Service on a real gate and SQLite store; the test decides, and the decision reaches the
// model: approve → the tool succeeds, reject → the tool fails with the reason.
func TestRealGeminiGate(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	tests := []struct {
		action approval.Action
		want   string
	}{
		{approval.Reject, "Split step 2 first"},
		{approval.Approve, "Plan approved"},
	}
	for _, tt := range tests {
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
			hs := agenttest.HookServer(t, svc)

			srv := agenttest.NewModelServer(t)
			cmd := envHookURL + "=" + agenttest.ShellQuote(hs.URL) + " " + agenttest.ShellQuote(os.Args[0])
			cli := agenttest.NewGemini(t, srv, map[string]any{"hooks": map[string]any{
				"BeforeTool": []any{map[string]any{"matcher": "^exit_plan_mode$", "hooks": []any{
					map[string]any{"type": "command", "command": cmd, "timeout": 120000}}}},
			}})
			var once sync.Once
			srv.Respond(func(r agenttest.Request) (agenttest.Turn, bool) {
				first := false
				once.Do(func() { first = true })
				if !first {
					return agenttest.Turn{}, false
				}
				m := plansRE.FindStringSubmatch(string(r.Body))
				if m == nil {
					t.Errorf("the first request names no plans directory")
					return agenttest.Turn{Text: "no plans directory"}, true
				}
				return agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "write_file", Input: map[string]any{
					"file_path": filepath.Join(m[1], "parser.md"), "content": "# Parser plan\n\n1. Tokenize\n2. Parse\n"}}}, true
			})
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "exit_plan_mode", Input: map[string]any{"plan_filename": "parser.md"}}},
				agenttest.Turn{Text: "Agenttest turn over."})

			decided := make(chan error, 1)
			go func() {
				select {
				case req := <-created:
					if !strings.Contains(req.Plan.Markdown, "1. Tokenize") || !strings.Contains(req.Context, "agent-box") {
						decided <- fmt.Errorf("request without the plan read by the hook: %+v", req)
						return
					}
					_, err := g.Decide(context.Background(), req.ID, approval.DecisionInput{Action: tt.action, By: "ann", Comment: "Split step 2 first"})
					decided <- err
				case <-time.After(3 * time.Minute):
					decided <- fmt.Errorf("no request reached the gate")
				}
			}()
			res := cli.Prompt(3*time.Minute, "plan the parser", "--approval-mode", "plan", "-m", geminiModel)
			if res.Err != nil {
				t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
			}
			if err := <-decided; err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, r := range srv.MainRequests() {
				for _, fr := range r.FunctionResponses() {
					if fr.Name != ToolExitPlanMode {
						continue
					}
					found = true
					isErr := strings.Contains(string(fr.Response), `"error"`)
					if !strings.Contains(string(fr.Response), tt.want) || isErr != (tt.action == approval.Reject) {
						t.Errorf("exit_plan_mode response = %s, want %q (error %v)", fr.Response, tt.want, tt.action == approval.Reject)
					}
				}
			}
			if !found {
				t.Errorf("no exit_plan_mode response reached the model:\n%s", srv.Summary())
			}
		})
	}
}

package gemini

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestRealGeminiAsksWhenPlandashCannotDecide: the REAL Gemini CLI with the policy `install
// gemini --gate` writes (exit_plan_mode allowed without a dialog) and plandash's BeforeTool hook,
// against a dashboard that answers 429 (throttled). The hook stops the turn, so the plan is not
// approved and the person decides what next. Before, the hook printed nothing and the policy
// approved the plan; a hook's "decision":"ask" does not help either (exit_plan_mode asks the
// policy itself and ignores it).
func TestRealGeminiAsksWhenPlandashCannotDecide(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	throttled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "60")
		http.Error(w, `{"title":"Too Many Requests","status":429}`, http.StatusTooManyRequests)
	}))
	t.Cleanup(throttled.Close)
	srv := agenttest.NewModelServer(t)
	cmd := envHookURL + "=" + agenttest.ShellQuote(throttled.URL) + " " + agenttest.ShellQuote(os.Args[0])
	cli := agenttest.NewGemini(t, srv, map[string]any{"hooks": map[string]any{
		"BeforeTool": []any{map[string]any{"matcher": "^exit_plan_mode$", "hooks": []any{
			map[string]any{"type": "command", "command": cmd, "timeout": 120000}}}},
	}})
	policy := filepath.Join(cli.Home, ".gemini", "policies", "plandash.toml")
	if err := os.MkdirAll(filepath.Dir(policy), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(policy, []byte(Policy), 0o644); err != nil {
		t.Fatal(err)
	}
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
	res := cli.Prompt(3*time.Minute, "plan the parser", "--approval-mode", "plan", "-m", geminiModel)
	approved := false
	for _, r := range srv.MainRequests() {
		for _, fr := range r.FunctionResponses() {
			if fr.Name == ToolExitPlanMode && strings.Contains(string(fr.Response), "Plan approved") && !strings.Contains(string(fr.Response), `"error"`) {
				approved = true
			}
		}
	}
	if approved {
		t.Fatalf("the plan was approved with plandash throttled and nobody asked\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Stdout, res.Stderr, srv.Summary())
	}
	if out := res.Stdout + res.Stderr; !strings.Contains(out, "Nobody approved this plan") {
		t.Fatalf("the hook's reason never reached the person\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Stdout, res.Stderr, srv.Summary())
	}
}

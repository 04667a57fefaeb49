package pi

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// installDown installs the extension into cli's home, pointed at a port nothing listens on.
func installDown(t *testing.T, cli *agenttest.Pi) {
	t.Helper()
	dir := ExtensionDir("", func(k string) string { return map[string]string{"HOME": cli.Home}[k] })
	if _, err := Install(dir, Options{Server: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
}

// TestRealPiPlandashDown: with plandash unreachable, the REAL Pi goes on: its todo list is
// dropped, and in print mode (no terminal UI to ask in) a submitted plan is not approved.
func TestRealPiPlandashDown(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	srv := agenttest.NewModelServer(t)
	cli := agenttest.NewPi(t, srv)
	installDown(t, cli)
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todo_write", Input: todoArgs, ID: "toolu_todo"}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "submit_plan", Input: planArgs, ID: "toolu_plan"}},
		agenttest.Turn{Text: "Agenttest turn over."})
	res := cli.Print(2*time.Minute, "plan the parser")
	if res.Err != nil {
		t.Fatalf("pi -p: %v\n%s%s", res.Err, res.Stdout, res.Stderr)
	}
	results := map[string]agenttest.ToolResult{}
	for _, req := range srv.MainRequests() {
		for _, tr := range req.ToolResults() {
			results[tr.ToolUseID] = tr
		}
	}
	if tr := results["toolu_todo"]; tr.IsError || !strings.Contains(tr.Content, "Todo list saved") {
		t.Errorf("todo_write result = %+v; want it saved although plandash is down", tr)
	}
	if tr := results["toolu_plan"]; !tr.IsError || !strings.Contains(tr.Content, "Nobody approved") {
		t.Errorf("submit_plan result = %+v; want not approved", tr)
	}
}

// TestRealPiPlandashDownAsksInTerminal: with plandash unreachable, the REAL Pi's terminal UI
// asks the person about a submitted plan, and their answer reaches the model.
func TestRealPiPlandashDownAsksInTerminal(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	srv := agenttest.NewModelServer(t)
	cli := agenttest.NewPi(t, srv)
	installDown(t, cli)
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "submit_plan", Input: planArgs, ID: "toolu_plan"}},
		agenttest.Turn{Text: "Agenttest turn over."})
	x := cli.Interactive()
	x.Submit("plan the parser")
	x.WaitScreen(time.Minute, "Approve this plan?")
	x.Keys("Enter") // the first choice: Approve
	req := srv.WaitRequest(time.Minute, func(r agenttest.Request) bool { _, ok := r.ToolResult("toolu_plan"); return ok })
	if tr, _ := req.ToolResult("toolu_plan"); tr.IsError || !strings.Contains(tr.Content, "approved") {
		t.Errorf("submit_plan result = %+v; want approved in the terminal", tr)
	}
	x.Stop(10 * time.Second)
}

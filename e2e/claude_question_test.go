package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestClaudeQuestion: the real Claude Code CLI's AskUserQuestion, with the hooks `plandash
// install claude --gate` writes, waits in plandash; answered in Chromium on the question's page,
// the answer reaches the model in its next request, and no dialog was needed in the terminal.
func TestClaudeQuestion(t *testing.T) {
	agenttest.Command(t, "claude")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (apt-get install -y tmux)")
	}
	bin := buildPlandash(t)
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	r := newClaudeRun(t, bin, a)
	ask := map[string]any{"questions": []any{map[string]any{
		"question": "Which database should the service use?", "header": "Database", "multiSelect": false,
		"options": []any{
			map[string]any{"label": "PostgreSQL", "description": "A server, for several instances"},
			map[string]any{"label": "SQLite", "description": "One file, for one process"},
		}}}}
	r.srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "AskUserQuestion", Input: ask}}, agenttest.Turn{Text: claudeDone})
	inbox := openPage(t, a, "/approvals")
	x := r.cli.Interactive(r.args()...)
	x.Submit("set up the storage")

	row := `[data-testid="inbox-wait"][data-kind="question"]`
	inbox.waitLong(cliWait, "Claude Code's question in the inbox", exists(row))
	href := inbox.eval(`document.querySelector(` + js(row+` a`) + `).getAttribute("href")`)
	p := openPage(t, a, href)
	p.wait("the question's options", exists(`[data-testid="wait-option-0-1"]`))
	p.do(click(`[data-testid="wait-option-0-1"]`))
	p.do(click(`[data-testid="wait-submit"]`))
	p.wait("the answer recorded", `(document.querySelector('[data-testid="wait-outcome"]') || {}).textContent === "answered: SQLite"`)

	var res agenttest.ToolResult
	r.srv.WaitRequest(cliWait, func(req agenttest.Request) bool {
		for _, tr := range req.ToolResults() {
			if strings.Contains(tr.Content, "Which database should the service use?") {
				res = tr
				return true
			}
		}
		return false
	})
	if name := r.srv.ToolName(res.ToolUseID); name != "AskUserQuestion" || res.IsError ||
		!strings.Contains(res.Content, `"Which database should the service use?"="SQLite"`) {
		t.Errorf("the model got %+v (a result of %s), want the answer SQLite to AskUserQuestion", res, name)
	}
	x.WaitScreen(cliWait, claudeDone)
	inbox.waitLong(time.Minute, "the question gone from the inbox", gone(row))
	x.Stop(30 * time.Second)
}

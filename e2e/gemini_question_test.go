package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestGeminiQuestion: the real interactive Gemini CLI, with the hooks `plandash install gemini`
// writes, asks with ask_user; the question waits in plandash (no dialog in the terminal), is
// answered in Chromium on its page, and the answer reaches the model as the call's result in
// ask_user's own shape. Then Gemini waits for the next prompt until the person types.
func TestGeminiQuestion(t *testing.T) {
	agenttest.Command(t, "gemini")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (apt-get install -y tmux)")
	}
	bin := buildPlandash(t)
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	srv := agenttest.NewModelServer(t)
	g := agenttest.NewGemini(t, srv, nil)
	g.Env = append(g.Env, "PLANDASH_TOKEN="+token)
	cmd := exec.Command(bin, "install", "gemini", "--command", bin, "--server", a.url(""))
	cmd.Env = []string{"HOME=" + g.Home, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "updated") {
		t.Fatalf("plandash install gemini: %v\n%s", err, out)
	}
	ask := map[string]any{"questions": []any{map[string]any{"header": "Database", "question": "Which database should the service use?", "type": "choice",
		"options": []any{
			map[string]any{"label": "PostgreSQL", "description": "A server, for several instances"},
			map[string]any{"label": "SQLite", "description": "One file, for one process"},
		}}}}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "ask_user", Input: ask}},
		agenttest.Turn{Text: claudeDone}, agenttest.Turn{Text: secondDone})
	inbox := openPage(t, a, "/approvals")
	x := g.Interactive("-m", "gemini-2.5-pro")
	x.Submit("set up the storage")

	row := `[data-testid="inbox-wait"][data-kind="question"]`
	inbox.waitLong(cliWait, "Gemini's question in the inbox", exists(row))
	if strings.Contains(x.Screen(), "Answer Questions") {
		t.Error("Gemini showed its dialog while plandash held the question")
	}
	href := inbox.eval(`document.querySelector(` + js(row+` a`) + `).getAttribute("href")`)
	p := openPage(t, a, href)
	p.wait("the question's options", exists(`[data-testid="wait-option-0-1"]`))
	p.do(click(`[data-testid="wait-option-0-1"]`))
	p.do(click(`[data-testid="wait-submit"]`))
	p.wait("the answer recorded", `(document.querySelector('[data-testid="wait-outcome"]') || {}).textContent === "answered: SQLite"`)

	got := ""
	srv.WaitRequest(cliWait, func(r agenttest.Request) bool {
		for _, fr := range r.FunctionResponses() {
			if fr.Name == "ask_user" {
				got = string(fr.Response)
				return true
			}
		}
		return false
	})
	if !strings.Contains(got, `{\"answers\":{\"0\":\"SQLite\"}}`) {
		t.Errorf("the model got %s, want the answer SQLite to ask_user", got)
	}
	x.WaitScreen(cliWait, claudeDone)
	inbox.waitLong(cliWait, "the question gone from the inbox", gone(row))
	first := awaitAgentInput(t, a, "gemini-cli", claudeDone)
	if first.Answerable || first.AgentName != "Gemini CLI" {
		t.Errorf("the input wait = %+v", first)
	}
	before := len(srv.Requests())
	x.SubmitUntil("now the docs", func() bool { return len(srv.Requests()) > before })
	x.WaitScreen(cliWait, secondDone)
	awaitAgentInput(t, a, "gemini-cli", secondDone)
	x.Stop(30 * time.Second)
}

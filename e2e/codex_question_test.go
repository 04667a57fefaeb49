package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
)

// TestCodexQuestion: the real interactive Codex CLI, with the hooks `plandash install codex`
// writes (trusted as a user does in /hooks), asks with request_user_input; the question waits
// in plandash, is answered in Chromium on its page, and the answer reaches the model in its next
// request as the call's output, in Codex's own answer shape. Then Codex waits for the next
// prompt, which the list shows with its last message until the person types.
func TestCodexQuestion(t *testing.T) {
	agenttest.Command(t, "codex")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (apt-get install -y tmux)")
	}
	bin := buildPlandash(t)
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCodex(t, srv, "[features]\ndefault_mode_request_user_input = true\n", nil)
	c.Env = append(c.Env, "PLANDASH_TOKEN="+token)
	cmd := exec.Command(bin, "install", "codex", "--command", bin, "--server", a.url(""))
	cmd.Env = []string{"HOME=" + c.Home, "CODEX_HOME=" + c.Home, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "created") {
		t.Fatalf("plandash install codex: %v\n%s", err, out)
	}
	c.TrustHooks()
	ask := map[string]any{"questions": []any{map[string]any{"id": "db", "header": "Database", "question": "Which database should the service use?",
		"options": []any{
			map[string]any{"label": "PostgreSQL", "description": "A server, for several instances"},
			map[string]any{"label": "SQLite", "description": "One file, for one process"},
		}}}}
	srv.Script(agenttest.Turn{Text: "I need to know the database.", ToolUse: &agenttest.ToolUse{Name: "request_user_input", Input: ask}},
		agenttest.Turn{Text: claudeDone}, agenttest.Turn{Text: secondDone})
	inbox := openPage(t, a, "/approvals")
	x := c.Interactive()
	x.Submit("set up the storage")

	row := `[data-testid="inbox-wait"][data-kind="question"]`
	inbox.waitLong(cliWait, "Codex's question in the inbox", exists(row))
	href := inbox.eval(`document.querySelector(` + js(row+` a`) + `).getAttribute("href")`)
	p := openPage(t, a, href)
	p.wait("the question's options", exists(`[data-testid="wait-option-0-1"]`))
	p.do(click(`[data-testid="wait-option-0-1"]`))
	p.do(click(`[data-testid="wait-submit"]`))
	p.wait("the answer recorded", `(document.querySelector('[data-testid="wait-outcome"]') || {}).textContent === "answered: SQLite"`)

	next := srv.WaitRequest(cliWait, func(r agenttest.Request) bool { return !r.Side && len(r.FunctionCallOutputs()) > 0 })
	if outs := next.FunctionCallOutputs(); len(outs) != 1 || !strings.Contains(outs[0].Output, `{"answers":{"db":{"answers":["SQLite"]}}}`) {
		t.Errorf("the model got %+v, want the answer SQLite to request_user_input", outs)
	}
	x.WaitScreen(cliWait, claudeDone)
	inbox.waitLong(cliWait, "the question gone from the inbox", gone(row))

	first := awaitAgentInput(t, a, "codex", claudeDone)
	if first.Answerable || first.AgentName != "Codex" {
		t.Errorf("the input wait = %+v", first)
	}
	inbox.waitLong(cliWait, "the session waiting in the inbox", exists(`[data-testid="inbox-wait"][data-kind="input"]`))
	before := len(srv.Requests())
	x.SubmitUntil("now the docs", func() bool { return len(srv.Requests()) > before })
	x.WaitScreen(cliWait, secondDone)
	awaitInputWait(t, a, first.SessionID, secondDone)
	x.Stop(30 * time.Second)
}

// awaitAgentInput long-polls the waits until a session of agent waits for its next prompt after
// saying last, and returns that wait.
func awaitAgentInput(t *testing.T, a *app, agent, last string) waits.Wait {
	t.Helper()
	var l struct {
		Seq   uint64       `json:"seq"`
		Waits []waits.Wait `json:"waits"`
	}
	for deadline := time.Now().Add(cliWait); ; {
		code, body := a.gateAPI("GET", fmt.Sprintf("/api/v1/waits?after=%d&wait=10s", l.Seq), "")
		if code != 200 || json.Unmarshal(body, &l) != nil {
			t.Fatalf("GET /api/v1/waits: %d %s", code, body)
		}
		for _, w := range l.Waits {
			if w.Kind == waits.KindInput && w.Agent == agent && w.Detail == last {
				return w
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s wait for the next prompt after %q: %+v", agent, last, l.Waits)
		}
	}
}

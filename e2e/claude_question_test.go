package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
)

// TestClaudeQuestion: the real Claude Code CLI's AskUserQuestion, with the hooks `plandash
// install claude --gate` writes, waits in plandash; answered in Chromium on the question's page,
// the answer reaches the model in its next request, and no dialog was needed in the terminal.
// Then the CLI waits for the next prompt, which the list shows until the person types.
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
	r.srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "AskUserQuestion", Input: ask}}, agenttest.Turn{Text: claudeDone},
		agenttest.Turn{Text: secondDone})
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

	// The turn over, Claude Code waits for the next prompt: a wait with its last message that
	// only the terminal answers. The next prompt ends it; the next turn's end begins another.
	first := awaitInputWait(t, a, r.key(), claudeDone)
	if first.Answerable || first.AgentName != "Claude Code" {
		t.Errorf("the input wait = %+v", first)
	}
	inbox.waitLong(time.Minute, "the session waiting in the inbox", exists(`[data-testid="inbox-wait"][data-kind="input"]`))
	before := len(r.srv.Requests())
	x.SubmitUntil("now the docs", func() bool { return len(r.srv.Requests()) > before })
	x.WaitScreen(cliWait, secondDone)
	awaitInputWait(t, a, r.key(), secondDone)
	x.Stop(30 * time.Second)
}

const secondDone = "Second turn over."

// awaitInputWait long-polls the waits until session waits for its next prompt after saying
// last, and returns that wait; every input wait of the session must say last by then.
func awaitInputWait(t *testing.T, a *app, session, last string) waits.Wait {
	t.Helper()
	var l struct {
		Seq   uint64       `json:"seq"`
		Waits []waits.Wait `json:"waits"`
	}
	deadline := time.Now().Add(cliWait)
	for {
		code, body := a.gateAPI("GET", fmt.Sprintf("/api/v1/waits?after=%d&wait=10s", l.Seq), "")
		if code != 200 || json.Unmarshal(body, &l) != nil {
			t.Fatalf("GET /api/v1/waits: %d %s", code, body)
		}
		var found *waits.Wait
		n := 0
		for i, w := range l.Waits {
			if w.Kind == waits.KindInput && w.SessionID == session {
				n++
				if w.Detail == last {
					found = &l.Waits[i]
				}
			}
		}
		if found != nil && n == 1 {
			return *found
		}
		if time.Now().After(deadline) {
			t.Fatalf("no wait for the next prompt after %q: %+v", last, l.Waits)
		}
	}
}

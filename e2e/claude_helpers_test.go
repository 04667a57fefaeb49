package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/plandash/plandash/internal/agents/agenttest"
)

// The proof that Claude Code works with plandash: the real Claude Code CLI (against agenttest's
// scripted model server), its hooks installed by `plandash install claude`, running the real
// `plandash hook claude` binary, reporting to the real server, watched and decided in Chromium.

// cliWait bounds every wait on the CLI or on what its hooks cause. The CLI is a large Node
// program started afresh by every test on a loaded 2-core machine: the deadline is generous,
// and only a failure deadline.
const cliWait = 3 * time.Minute

// claudeModel enables the task tools in Claude Code 2.1.328 (shared/spec/agents.md §11).
const claudeModel = "claude-sonnet-4-5"

// claudePlanPathRE finds the plan file the CLI tells the model to write, in the request's
// system reminder: <HOME>/.claude/plans/<slug>.md.
var claudePlanPathRE = regexp.MustCompile(`/[^"\s\\]*/\.claude/plans/[^"\s\\]+\.md`)

// claudeRun is one Claude Code set up against a scripted model, with plandash's hooks
// installed in its project by the real `plandash install claude`.
type claudeRun struct {
	srv     *agenttest.ModelServer
	cli     *agenttest.Claude
	session string // the Claude Code session id the CLI is started with
}

// key is the session's id in plandash.
func (r *claudeRun) key() string { return "claude-code:" + r.session }

// newClaudeRun prepares Claude Code with plandash's hooks (gate included) reporting to a.
func newClaudeRun(t *testing.T, bin string, a *app) *claudeRun {
	t.Helper()
	r := &claudeRun{srv: agenttest.NewModelServer(t), session: newUUID(t)}
	r.cli = agenttest.NewClaude(t, r.srv, nil)
	cmd := exec.Command(bin, "install", "claude", "--project", r.cli.Dir, "--command", bin, "--gate", "--server", a.url(""), "--token", token)
	cmd.Env = []string{"HOME=" + r.cli.Home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "created") {
		t.Fatalf("plandash install claude: %v\n%s", err, out)
	}
	return r
}

// args are the CLI flags every run uses: the model with task tools and a known session id.
func (r *claudeRun) args(extra ...string) []string {
	return append([]string{"--model", claudeModel, "--session-id", r.session}, extra...)
}

// buildPlandash builds the plandash binary the hooks run, once per test.
func buildPlandash(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plandash")
	out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "../cmd/plandash").CombinedOutput()
	if err != nil {
		t.Fatalf("go build plandash: %v\n%s", err, out)
	}
	return bin
}

func newUUID(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// waitLong is page.wait with a deadline fit for what a real CLI causes.
func (p *page) waitLong(timeout time.Duration, what, cond string) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, waitFor)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(function(){ try { return (`+cond+`); } catch (e) { return false; } })()`))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.fail("timed out after %s waiting for %s (last error: %v)\ncondition: %s", timeout, what, err, cond)
		}
		select {
		case <-p.ctx.Done():
			p.fail("tab closed while waiting for %s: %v", what, p.ctx.Err())
		case <-time.After(100 * time.Millisecond): // polling interval, not an assertion
		}
	}
}

// scriptPlans makes the scripted model, in plan mode, write each plan in turn to the plan file
// the first request names and propose it with ExitPlanMode; after the last it ends its turn
// saying done.
func scriptPlans(t *testing.T, srv *agenttest.ModelServer, done string, plans ...string) {
	var (
		mu    sync.Mutex
		path  string
		steps []func() agenttest.Turn
	)
	for _, plan := range plans {
		steps = append(steps,
			func() agenttest.Turn {
				return agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "Write", Input: map[string]any{"file_path": path, "content": plan}}}
			},
			func() agenttest.Turn {
				return agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "ExitPlanMode", Input: map[string]any{}}}
			})
	}
	srv.Respond(func(r agenttest.Request) (agenttest.Turn, bool) {
		mu.Lock()
		defer mu.Unlock()
		if path == "" {
			if path = claudePlanPathRE.FindString(string(r.Body)); path == "" {
				t.Errorf("the first request names no plan file")
			}
		}
		if len(steps) == 0 {
			return agenttest.Turn{Text: done}, true
		}
		next := steps[0]
		steps = steps[1:]
		return next(), true
	})
}

// exitPlanResult waits for the next request that carries a result of an ExitPlanMode call
// whose content contains want, and returns that result.
func exitPlanResult(t *testing.T, srv *agenttest.ModelServer, want string) agenttest.ToolResult {
	t.Helper()
	var res agenttest.ToolResult
	srv.WaitRequest(cliWait, func(r agenttest.Request) bool {
		for _, tr := range r.ToolResults() {
			if strings.Contains(tr.Content, want) {
				res = tr
				return true
			}
		}
		return false
	})
	if name := srv.ToolName(res.ToolUseID); name != "ExitPlanMode" {
		t.Fatalf("the result carrying %q answers %s, not ExitPlanMode", want, name)
	}
	return res
}

// pendingRequest waits on the inbox (p, on /approvals) for a pending request other than those
// in skip, and returns its id.
func pendingRequest(p *page, skip ...string) string {
	p.t.Helper()
	sel := `[data-testid="approvals-pending"] [data-testid="approval-row"]`
	find := fmt.Sprintf(`Array.from(document.querySelectorAll(%s)).map(e => e.dataset.id).filter(id => !%s.includes(id))`, js(sel), jsList(skip))
	p.waitLong(cliWait, "Claude Code's plan in the inbox", find+`.length === 1`)
	return p.eval(find + `[0]`)
}

func jsList(ss []string) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(js(s))
	}
	b.WriteByte(']')
	return b.String()
}

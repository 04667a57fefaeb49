package codex

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestRealCodexStopUndecided: the real Codex CLI's Stop hook (this test binary running RunHook)
// against a dashboard that answers 429: Codex takes the hook's output, a systemMessage that
// nobody approved the plan (no error, no block), and the turn ends with the plan left to the
// person. (codex exec --json does not show a hook's systemMessage; the TUI does.)
func TestRealCodexStopUndecided(t *testing.T) {
	needRealCLI(t)
	var hits atomic.Int32
	throttled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, `{"title":"Too Many Requests","status":429}`, http.StatusTooManyRequests)
	}))
	t.Cleanup(throttled.Close)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hooks, _, err := mergeHooks(nil, &InstallOptions{Command: exe, Timeout: 600})
	if err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCodex(t, srv, "", json.RawMessage(hooks))
	c.Env = append(c.Env, envHookURL+"="+throttled.URL+"/api/v1/hooks/codex")
	srv.Script(agenttest.Turn{Text: "My plan:\n<proposed_plan>\n# Parser\n\n1. Tokenize\n</proposed_plan>"})
	res := c.Exec(3*time.Minute, "plan the parser")
	if res.Err != nil {
		t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	if n := len(srv.MainRequests()); n != 1 {
		t.Errorf("model requests %d, want 1 (the hook must not block the stop):\n%s", n, srv.Summary())
	}
	if hits.Load() == 0 {
		t.Fatal("the Stop hook never reached the dashboard")
	}
}

package droid

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestRealDroidAsksWhenPlandashCannotDecide: the REAL Droid with plandash's gate hook against
// a dashboard that answers 429 (throttled). The hook answers "ask": the spec is not approved,
// and Droid shows its own dialog, where the person at the terminal decides (here: approves,
// with manual approvals).
func TestRealDroidAsksWhenPlandashCannotDecide(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	throttled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "60")
		http.Error(w, `{"title":"Too Many Requests","status":429}`, http.StatusTooManyRequests)
	}))
	t.Cleanup(throttled.Close)
	srv := agenttest.NewModelServer(t)
	cli := agenttest.NewDroid(t, srv, nil)
	settings := filepath.Join(cli.Home, ".factory", "settings.json")
	if _, err := Install(settings, InstallOptions{Command: "plandash", Gate: true, GateTimeout: 300}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	cmd := envHookURL + "=" + agenttest.ShellQuote(throttled.URL) + " " + agenttest.ShellQuote(os.Args[0])
	if err := os.WriteFile(settings, bytes.ReplaceAll(b, []byte(`"plandash hook droid"`), []byte(jsonString(cmd+" hook droid"))), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolExitSpecMode, ID: "toolu_spec", Input: map[string]any{"plan": "# Parser spec\n\n1. Tokenize\n"}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	x := cli.Interactive("--use-spec")
	x.Submit("plan the parser")
	screen := x.WaitScreen(2*time.Minute, "1. Tokenize", "Proceed with the proposal")
	for _, r := range srv.Requests() {
		if res, ok := findResult(r.Body, "toolu_spec"); ok {
			t.Fatalf("the spec got a result with plandash throttled and nobody asked: %+v\nscreen:\n%s", res, screen)
		}
	}
	// Droid's dialog: "Proceed with the proposal", then the autonomy to go on with.
	x.Answer("Proceed with the proposal", time.Minute, "Enter")
	x.Answer("Proceed with Manual Approvals", time.Minute, "Enter")
	if res := resultOf(t, srv, "toolu_spec"); !strings.Contains(res.Content, `"approved":true`) {
		t.Errorf("the person's approval in the terminal did not reach the model: %+v\nscreen:\n%s", res, x.Screen())
	}
}

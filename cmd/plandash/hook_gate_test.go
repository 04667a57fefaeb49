package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/web"
)

// codexPlanStop is a Codex Stop event whose turn ended with a plan.
const codexPlanStop = `{"session_id":"019a0000-0000-7000-8000-000000000001","turn_id":"t1","transcript_path":"","cwd":"/w/project",` +
	`"hook_event_name":"Stop","model":"gpt-5","permission_mode":"default","stop_hook_active":false,` +
	`"last_assistant_message":"<proposed_plan>\n# Ship it\n- delete the old tables\n</proposed_plan>"}`

// TestGateHooksAskWhenNoDecision: `plandash hook gemini` (BeforeTool exit_plan_mode) and
// `plandash hook codex` (Stop with a plan), run the real way against a dashboard that cannot
// decide — throttled, down, failing, refusing the token — exit 0 and hand the plan to the
// person: Gemini CLI's turn is stopped (the allow policy `install gemini --gate` writes would
// approve on silence, and exit_plan_mode ignores a hook's "ask"), Codex gets a systemMessage
// saying nobody approved, Claude Code no decision (its plan dialog), and stderr says why. Before,
// both printed nothing, which Gemini (with the policy) and Codex take as approval.
func TestGateHooksAskWhenNoDecision(t *testing.T) {
	geminiEvent, err := os.ReadFile("../../internal/agents/gemini/testdata/captured/plan_06_BeforeTool_exit_plan_mode.json")
	if err != nil {
		t.Fatal(err)
	}
	claudeEvent, err := os.ReadFile("../../internal/agents/claude/testdata/permission_exitplanmode.json")
	if err != nil {
		t.Fatal(err)
	}
	real := func(t *testing.T) string {
		srv, err := app.Open(context.Background(), app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: t.TempDir(), Token: "tok"})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.Server.Handler())
		t.Cleanup(func() { ts.Close(); srv.Close() })
		return ts.URL
	}
	throttled := func(t *testing.T) string {
		base := real(t)
		// What a web page's <img> tags can do from the browser's (and the agent's) address.
		for range 25 {
			resp, err := http.Get(base + "/sessions?token=wrong")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		return base
	}
	failing := func(code int) func(t *testing.T) string {
		return func(t *testing.T) string {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "boom", code)
			}))
			t.Cleanup(ts.Close)
			return ts.URL
		}
	}
	servers := []struct {
		name  string
		url   func(t *testing.T) string
		token string
		why   string // in stderr
	}{
		{"throttled", throttled, "wrong", "429"},
		{"down", func(*testing.T) string { return "http://127.0.0.1:1" }, "tok", "plandash could not get a decision"},
		{"500", failing(http.StatusInternalServerError), "tok", "500"},
		{"502", failing(http.StatusBadGateway), "tok", "502"},
		{"bad token", real, "wrong", "401"},
	}
	for _, srv := range servers {
		for _, agent := range []string{"gemini", "codex", "claude"} {
			t.Run(srv.name+"/"+agent, func(t *testing.T) {
				in := map[string]string{"gemini": string(geminiEvent), "codex": codexPlanStop, "claude": string(claudeEvent)}[agent]
				var out, errOut bytes.Buffer
				args := []string{"hook", agent, "--server", srv.url(t), "--token", srv.token}
				if err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(in), &out, &errOut); err != nil {
					t.Fatalf("hook %s: %v (the hook must exit 0)", agent, err)
				}
				if !strings.Contains(errOut.String(), srv.why) {
					t.Errorf("stderr %q does not say why (%q)", errOut.String(), srv.why)
				}
				if agent == "claude" {
					// A PermissionRequest hook has no "ask": no decision is Claude Code's own dialog.
					if out.Len() != 0 {
						t.Errorf("claude: %q, want no decision", out.String())
					}
					return
				}
				var v map[string]any
				if err := json.Unmarshal(out.Bytes(), &v); err != nil {
					t.Fatalf("hook %s printed %q, want the answer that leaves the plan to the person", agent, out.String())
				}
				switch agent {
				case "gemini":
					if v["continue"] != false || v["stopReason"] == "" || v["decision"] != nil {
						t.Errorf("gemini: %q, want the turn stopped (continue false) with a reason", out.String())
					}
				case "codex":
					if msg, _ := v["systemMessage"].(string); v["decision"] != nil || !strings.Contains(msg, "Nobody approved this plan") {
						t.Errorf("codex: %q, want no decision and a systemMessage that nobody approved", out.String())
					}
				}
			})
		}
	}
}

package agenttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// planPathRE finds the plan file the CLI tells the model to write, in the request's system
// reminder: <HOME>/.claude/plans/<slug>.md.
var planPathRE = regexp.MustCompile(`/[^"\s\\]*/\.claude/plans/[^"\s\\]+\.md`)

// scriptPlan makes the model write plan to the plan file the first request names, then call
// ExitPlanMode {}, then answer every later request with after.
func scriptPlan(t *testing.T, srv *ModelServer, plan, after string) {
	var once sync.Once
	srv.Respond(func(r Request) (Turn, bool) {
		path := planPathRE.FindString(string(r.Body))
		first := false
		once.Do(func() { first = true })
		if !first {
			return Turn{}, false
		}
		if path == "" {
			t.Errorf("the first request names no plan file")
		}
		return Turn{ToolUse: &ToolUse{Name: "Write", Input: map[string]any{"file_path": path, "content": plan}}}, true
	})
	srv.Script(Turn{ToolUse: &ToolUse{Name: "ExitPlanMode", Input: map[string]any{}}}, Turn{Text: after})
}

// TestClaudePlanModeGate: in interactive plan mode (under tmux), the PermissionRequest hook on
// ExitPlanMode receives the plan, and its answer reaches the model.
func TestClaudePlanModeGate(t *testing.T) {
	needAgents(t)
	needTmux(t)
	const plan = "# Parser plan\n\n1. Tokenize\n2. Parse\n"
	const edited = "# Parser plan (edited by a human)\n\n1. Tokenize\n2. Parse\n3. EDITED-STEP fuzz it\n"
	tests := []struct {
		name string
		// hook returns the PermissionRequest command recording to rec.
		hook func(rec string) string
		// check asserts on the ExitPlanMode tool_result the model got back.
		check func(t *testing.T, res ToolResult)
		// onDisk is the plan file's content once the model got its answer.
		onDisk string
	}{
		{
			name: "deny",
			hook: func(rec string) string { return RecordHook(rec, DenyReply("Split step 2 into smaller steps")) },
			check: func(t *testing.T, res ToolResult) {
				if !res.IsError || !strings.Contains(res.Content, "Split step 2 into smaller steps") {
					t.Errorf("tool_result = %+v, want an error carrying the deny message", res)
				}
			},
			onDisk: plan,
		},
		{
			name: "allow",
			hook: func(rec string) string { return EchoAllowHook(rec, "") },
			check: func(t *testing.T, res ToolResult) {
				if res.IsError || !strings.Contains(res.Content, "User has approved your plan") || !strings.Contains(res.Content, plan) {
					t.Errorf("tool_result = %+v, want a success carrying the plan", res)
				}
			},
			onDisk: plan,
		},
		{
			name: "allow-edited",
			hook: func(rec string) string { return EchoAllowHook(rec, edited) },
			check: func(t *testing.T, res ToolResult) {
				// 2.1.328 passes an edited updatedInput.plan on to the model, labelled as
				// edited, and writes it over the plan file.
				if res.IsError || !strings.Contains(res.Content, "## Approved Plan (edited by user):\n"+edited) {
					t.Errorf("tool_result = %+v, want a success carrying the edited plan", res)
				}
			},
			onDisk: edited,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			srv := NewModelServer(t)
			rec := filepath.Join(t.TempDir(), "permission.jsonl")
			c := NewClaude(t, srv, map[string]any{"hooks": map[string]any{
				"PermissionRequest": []any{map[string]any{"matcher": "ExitPlanMode", "hooks": []any{
					map[string]any{"type": "command", "command": tt.hook(rec)}}}},
			}})
			scriptPlan(t, srv, plan, "Agenttest turn over.")

			x := c.Interactive("--permission-mode", "plan", "--model", "claude-sonnet-4-5")
			x.Submit("plan the parser")

			ev := WaitHookEvent(t, rec, 2*time.Minute, func(map[string]any) bool { return true })
			if ev["hook_event_name"] != "PermissionRequest" || ev["tool_name"] != "ExitPlanMode" {
				t.Errorf("event %v/%v, want PermissionRequest/ExitPlanMode", ev["hook_event_name"], ev["tool_name"])
			}
			in, _ := ev["tool_input"].(map[string]any)
			if in["plan"] != plan {
				t.Errorf("tool_input.plan = %q, want %q", in["plan"], plan)
			}
			planFile, _ := in["planFilePath"].(string)
			if !strings.HasPrefix(planFile, filepath.Join(c.Home, ".claude", "plans")) {
				t.Errorf("tool_input.planFilePath = %q, want a file under HOME/.claude/plans", planFile)
			}

			exitID := ""
			for _, r := range srv.MainRequests() {
				if r.Answer.ToolUse != nil && r.Answer.ToolUse.Name == "ExitPlanMode" {
					exitID = r.Answer.ToolUse.ID
				}
			}
			if exitID == "" {
				t.Fatalf("the model never called ExitPlanMode:\n%s", srv.Summary())
			}
			next := srv.WaitRequest(2*time.Minute, func(r Request) bool { _, ok := r.ToolResult(exitID); return ok })
			res, _ := next.ToolResult(exitID)
			tt.check(t, res)
			if b, err := os.ReadFile(planFile); err != nil || string(b) != tt.onDisk {
				t.Errorf("plan file = %q (%v), want %q", b, err, tt.onDisk)
			}
			// The CLI shows the model's last answer and is ready again.
			x.WaitScreen(time.Minute, "Agenttest turn over.")
			x.Stop(30 * time.Second)
			t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
		})
	}
}

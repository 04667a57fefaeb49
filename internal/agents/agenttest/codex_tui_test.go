package agenttest

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCodexTUIStopHook: the interactive Codex under tmux runs pre-trusted hooks (no review
// dialog) and fires Stop at the end of the turn; it records whether the TUI offers update_plan.
func TestCodexTUIStopHook(t *testing.T) {
	needAgents(t)
	needTmux(t)
	start := time.Now()
	srv := NewModelServer(t)
	rec := filepath.Join(t.TempDir(), "stop.jsonl")
	c := NewCodex(t, srv, "", map[string]any{"hooks": map[string]any{
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": RecordHook(rec, "")}}}},
	}})
	plan := map[string]any{"plan": []any{map[string]any{"step": "Parse", "status": "in_progress"}}}
	srv.Script(Turn{ToolUse: &ToolUse{Name: "update_plan", Input: plan}}, Turn{Text: "Agenttest turn over."})

	x := c.Interactive()
	x.Submit("plan the parser")
	ev := WaitHookEvent(t, rec, 2*time.Minute, func(ev map[string]any) bool { return ev["hook_event_name"] == "Stop" })
	if ev["last_assistant_message"] != "Agenttest turn over." || ev["cwd"] != c.Dir {
		t.Errorf("Stop event = %v", ev)
	}
	x.WaitScreen(time.Minute, "Agenttest turn over.")
	main := srv.MainRequests()
	if len(main) < 2 {
		t.Fatalf("main-loop requests = %d, want 2:\n%s", len(main), srv.Summary())
	}
	// 0.169.0 offers no update_plan in the TUI either, and answers the call "unsupported
	// call: update_plan"; the rollout still records it (TestCodexExecUpdatePlan).
	t.Logf("TUI offers update_plan: %v; its output: %+v", slices.Contains(main[0].ToolNames(), "update_plan"), main[1].FunctionCallOutputs())
	x.Stop(30 * time.Second)
	t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
}

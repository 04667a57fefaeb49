package agenttest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCodexExecUpdatePlan: a scripted update_plan call in `codex exec` is recorded in the
// rollout file with its arguments, and the CLI answers it back to the model.
func TestCodexExecUpdatePlan(t *testing.T) {
	needAgents(t)
	start := time.Now()
	srv := NewModelServer(t)
	c := NewCodex(t, srv, "", nil)
	args := map[string]any{"explanation": "first cut", "plan": []any{
		map[string]any{"step": "Read config loader", "status": "completed"},
		map[string]any{"step": "Add env override", "status": "in_progress"},
		map[string]any{"step": "Write tests", "status": "pending"},
	}}
	srv.Script(Turn{ToolUse: &ToolUse{Name: "update_plan", Input: args}}, Turn{Text: "Agenttest turn over."})

	res := c.Exec(3*time.Minute, "plan the env override")
	if res.Err != nil {
		t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	main := srv.MainRequests()
	if len(main) != 2 {
		t.Fatalf("main-loop requests = %d, want 2:\n%s", len(main), srv.Summary())
	}
	// The call is answered back to the model either way; in exec mode 0.169.0 does not offer
	// update_plan, and answers it "unsupported call".
	outs := main[1].FunctionCallOutputs()
	if len(outs) != 1 || outs[0].CallID != main[0].Answer.ToolUse.ID {
		t.Errorf("function_call_outputs = %+v, want the one for %s", outs, main[0].Answer.ToolUse.ID)
	}
	t.Logf("offered tools: %v; update_plan output: %+v", main[0].ToolNames(), outs)
	rollouts := c.Rollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollout files = %v, want 1", rollouts)
	}
	var found bool
	for _, fc := range FunctionCalls(ReadRollout(t, rollouts[0])) {
		if fc.Name != "update_plan" {
			continue
		}
		var got, want any
		if err := json.Unmarshal([]byte(fc.Arguments), &got); err != nil {
			t.Fatalf("update_plan arguments %q: %v", fc.Arguments, err)
		}
		b, _ := json.Marshal(args)
		_ = json.Unmarshal(b, &want)
		if string(mustJSON(t, got)) != string(mustJSON(t, want)) {
			t.Errorf("update_plan arguments = %s, want %s", fc.Arguments, b)
		}
		found = true
	}
	if !found {
		t.Errorf("no update_plan function_call in %s", rollouts[0])
	}
	t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stopGate is a Codex hooks.json with a Stop hook that records its input to rec and, on the
// first stop of a turn (stop_hook_active false), blocks it with reason, as a plan gate
// requesting changes does (shared/spec/agents.md §2.3).
func stopGate(rec, reason string) map[string]any {
	block, _ := json.Marshal(map[string]any{"decision": "block", "reason": reason})
	cmd := `input=$(cat); printf '%s\n' "$input" | tr -d '\n' >> ` + ShellQuote(rec) + `; echo >> ` + ShellQuote(rec) +
		`; case "$input" in *'"stop_hook_active":false'*) printf '%s' ` + ShellQuote(string(block)) + `;; esac`
	return map[string]any{"hooks": map[string]any{
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}},
	}}
}

// TestCodexExecStopHookBlock: a trusted Stop hook runs in `codex exec`; its block decision
// makes Codex ask the model again with the reason, and the second stop is let through.
func TestCodexExecStopHookBlock(t *testing.T) {
	needAgents(t)
	start := time.Now()
	srv := NewModelServer(t)
	rec := filepath.Join(t.TempDir(), "stop.jsonl")
	const reason = "Plan feedback: add a step for fuzz tests"
	c := NewCodex(t, srv, "", stopGate(rec, reason))
	srv.Script(Turn{Text: "Here is my plan: 1. parse"}, Turn{Text: "Revised: 1. parse 2. fuzz"})

	res := c.Exec(3*time.Minute, "plan the parser")
	if res.Err != nil {
		t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	evs := HookEvents(t, rec)
	if len(evs) != 2 {
		t.Fatalf("Stop events = %d, want 2 (blocked, then let through): %v", len(evs), evs)
	}
	if evs[0]["stop_hook_active"] != false || evs[1]["stop_hook_active"] != true {
		t.Errorf("stop_hook_active = %v then %v, want false then true", evs[0]["stop_hook_active"], evs[1]["stop_hook_active"])
	}
	if evs[0]["last_assistant_message"] != "Here is my plan: 1. parse" || evs[0]["cwd"] != c.Dir {
		t.Errorf("first Stop event = %v", evs[0])
	}
	// 0.169.0 sends the reason as a user message "<hook_prompt hook_run_id=…>REASON</hook_prompt>".
	main := srv.MainRequests()
	if len(main) != 2 || !strings.Contains(string(main[1].Body), reason+"</hook_prompt>") {
		t.Fatalf("want a second model request carrying the block reason; requests:\n%s", srv.Summary())
	}
	t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
}

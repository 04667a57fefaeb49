package agenttest

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// geminiModel is a Gemini 2.x non-preview model: Gemini CLI 0.61.0 offers write_todos only
// to those (Config: useWriteTodos = isGemini2 && !preview && !tracker).
const geminiModel = "gemini-2.5-pro"

// TestGeminiAfterToolWriteTodos: a scripted write_todos in `gemini -p` fires an AfterTool
// command hook with the todos and the tool's response.
func TestGeminiAfterToolWriteTodos(t *testing.T) {
	needAgents(t)
	start := time.Now()
	srv := NewModelServer(t)
	rec := filepath.Join(t.TempDir(), "after.jsonl")
	g := NewGemini(t, srv, map[string]any{"hooks": map[string]any{
		"AfterTool": []any{map[string]any{"matcher": "write_todos", "hooks": []any{
			map[string]any{"type": "command", "command": RecordHook(rec, "")}}}},
	}})
	todos := []any{map[string]any{"description": "Parse", "status": "in_progress"},
		map[string]any{"description": "Fuzz", "status": "pending"}}
	srv.Script(Turn{ToolUse: &ToolUse{Name: "write_todos", Input: map[string]any{"todos": todos}}}, Turn{Text: "Agenttest turn over."})

	res := g.Prompt(3*time.Minute, "plan the parser", "--yolo", "-m", geminiModel)
	if res.Err != nil {
		t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	evs := HookEvents(t, rec)
	if len(evs) != 1 {
		t.Fatalf("AfterTool events = %d, want 1; requests:\n%s", len(evs), srv.Summary())
	}
	ev := evs[0]
	in, _ := ev["tool_input"].(map[string]any)
	got, _ := in["todos"].([]any)
	if ev["hook_event_name"] != "AfterTool" || ev["tool_name"] != "write_todos" || len(got) != 2 || ev["cwd"] != g.Dir {
		t.Errorf("event = %v", ev)
	}
	if resp, _ := ev["tool_response"].(map[string]any); resp["llmContent"] == nil {
		t.Errorf("tool_response = %v, want llmContent", ev["tool_response"])
	}
	t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
}

// geminiPlansRE finds the plans directory Gemini CLI names in plan mode's tool descriptions.
var geminiPlansRE = regexp.MustCompile(`plans directory: (/[^\s"\\]+/plans)`)

// TestGeminiBeforeToolExitPlanModeDeny: in plan mode, a scripted write_file of a plan then
// exit_plan_mode fires the BeforeTool hook (matcher exit_plan_mode); its deny reason reaches
// the model as the tool's error.
func TestGeminiBeforeToolExitPlanModeDeny(t *testing.T) {
	needAgents(t)
	start := time.Now()
	srv := NewModelServer(t)
	rec := filepath.Join(t.TempDir(), "before.jsonl")
	const reason = "Split step 2 into smaller steps"
	g := NewGemini(t, srv, map[string]any{"hooks": map[string]any{
		"BeforeTool": []any{map[string]any{"matcher": "exit_plan_mode", "hooks": []any{
			map[string]any{"type": "command", "command": RecordHook(rec, `{"decision":"deny","reason":"`+reason+`"}`)}}}},
	}})
	var once sync.Once
	srv.Respond(func(r Request) (Turn, bool) {
		first := false
		once.Do(func() { first = true })
		if !first {
			return Turn{}, false
		}
		m := geminiPlansRE.FindStringSubmatch(string(r.Body))
		if m == nil {
			t.Errorf("the first request names no plans directory")
			return Turn{Text: "no plans directory"}, true
		}
		return Turn{ToolUse: &ToolUse{Name: "write_file", Input: map[string]any{
			"file_path": filepath.Join(m[1], "parser.md"), "content": "# Plan\n1. Tokenize\n2. Parse\n"}}}, true
	})
	srv.Script(Turn{ToolUse: &ToolUse{Name: "exit_plan_mode", Input: map[string]any{"plan_filename": "parser.md"}}},
		Turn{Text: "Agenttest turn over."})

	res := g.Prompt(3*time.Minute, "plan the parser", "--approval-mode", "plan", "-m", geminiModel)
	if res.Err != nil {
		t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	evs := HookEvents(t, rec)
	if len(evs) != 1 {
		t.Fatalf("BeforeTool events = %d, want 1; requests:\n%s", len(evs), srv.Summary())
	}
	in, _ := evs[0]["tool_input"].(map[string]any)
	if evs[0]["tool_name"] != "exit_plan_mode" || in["plan_filename"] != "parser.md" {
		t.Errorf("event = %v", evs[0])
	}
	var found bool
	for _, r := range srv.MainRequests() {
		for _, fr := range r.FunctionResponses() {
			if fr.Name == "write_file" && strings.Contains(string(fr.Response), "error") {
				t.Errorf("writing the plan failed: %s", fr.Response)
			}
			if fr.Name == "exit_plan_mode" {
				found = true
				if !strings.Contains(string(fr.Response), `"error"`) || !strings.Contains(string(fr.Response), reason) {
					t.Errorf("exit_plan_mode response = %s, want an error carrying the reason", fr.Response)
				}
			}
		}
	}
	if !found {
		t.Errorf("no exit_plan_mode function response reached the model:\n%s", srv.Summary())
	}
	t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
}

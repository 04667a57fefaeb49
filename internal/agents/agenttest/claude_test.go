package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// postToolUse is settings with one PostToolUse command hook recording to rec.
func postToolUse(matcher, rec string) map[string]any {
	return map[string]any{"hooks": map[string]any{
		"PostToolUse": []any{map[string]any{"matcher": matcher, "hooks": []any{
			map[string]any{"type": "command", "command": RecordHook(rec, "")}}}},
	}}
}

// TestClaudePrintTaskTools: a scripted TaskCreate (default task system) and TodoWrite (with
// CLAUDE_CODE_ENABLE_TASKS=0) run for real in `claude -p` and fire a PostToolUse command hook
// with the whole event.
func TestClaudePrintTaskTools(t *testing.T) {
	needAgents(t)
	tests := []struct {
		name  string
		env   []string
		tool  string
		input map[string]any
		// checkResponse asserts on the hook's tool_response.
		checkResponse func(t *testing.T, resp map[string]any)
	}{
		{
			name:  "TaskCreate",
			tool:  "TaskCreate",
			input: map[string]any{"subject": "Write the parser", "description": "A tolerant one", "activeForm": "Writing the parser"},
			checkResponse: func(t *testing.T, resp map[string]any) {
				task, _ := resp["task"].(map[string]any)
				if id, _ := task["id"].(string); id == "" || task["subject"] != "Write the parser" {
					t.Errorf("tool_response.task = %v, want an id and the subject", task)
				}
			},
		},
		{
			name:  "TodoWrite",
			env:   []string{"CLAUDE_CODE_ENABLE_TASKS=0"},
			tool:  "TodoWrite",
			input: map[string]any{"todos": []any{map[string]any{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}}},
			checkResponse: func(t *testing.T, resp map[string]any) {
				todos, _ := resp["newTodos"].([]any)
				if len(todos) != 1 {
					t.Errorf("tool_response.newTodos = %v, want the one todo", resp["newTodos"])
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			srv := NewModelServer(t)
			rec := filepath.Join(t.TempDir(), "post.jsonl")
			c := NewClaude(t, srv, postToolUse("TaskCreate|TodoWrite", rec))
			c.Env = append(c.Env, tt.env...)
			srv.Script(Turn{ToolUse: &ToolUse{Name: tt.tool, Input: tt.input}}, Turn{Text: "done"})

			res := c.Print(3*time.Minute, "plan the parser", "--model", "claude-sonnet-4-5")
			if res.Err != nil {
				t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
			}
			main := srv.MainRequests()
			if len(main) < 2 {
				t.Fatalf("main-loop requests = %d, want 2:\n%s", len(main), srv.Summary())
			}
			// 2.1.328 defers these tools (offered by name behind ToolSearch, not in tools[]),
			// yet runs a direct call to them.
			t.Logf("%s in tools[]: %v; named in the request: %v", tt.tool,
				slices.Contains(main[0].ToolNames(), tt.tool), strings.Contains(string(main[0].Body), tt.tool))
			evs := HookEvents(t, rec)
			if len(evs) != 1 {
				t.Fatalf("PostToolUse events = %d, want 1; requests:\n%s", len(evs), srv.Summary())
			}
			ev := evs[0]
			if ev["hook_event_name"] != "PostToolUse" || ev["tool_name"] != tt.tool {
				t.Errorf("event %v/%v, want PostToolUse/%s", ev["hook_event_name"], ev["tool_name"], tt.tool)
			}
			if ev["cwd"] != c.Dir {
				t.Errorf("cwd = %v, want %s", ev["cwd"], c.Dir)
			}
			if id, _ := ev["session_id"].(string); id == "" {
				t.Errorf("no session_id in %v", ev)
			}
			in, _ := ev["tool_input"].(map[string]any)
			for k := range tt.input {
				if in[k] == nil {
					t.Errorf("tool_input lacks %q: %v", k, in)
				}
			}
			resp, _ := ev["tool_response"].(map[string]any)
			tt.checkResponse(t, resp)
			// The result went back to the model as a successful tool_result.
			id := main[0].Answer.ToolUse.ID
			if r, ok := main[1].ToolResult(id); !ok || r.IsError {
				t.Errorf("second request's tool_result for %s = %+v (found %v), want a success", id, r, ok)
			}
			t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
		})
	}
}

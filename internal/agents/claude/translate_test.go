package claude

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// shape summarises a translated batch: requests by method, responses as "result", updates by
// their sessionUpdate. The initialize exchange every batch opens with is checked and left out.
func shape(t *testing.T, msgs []json.RawMessage) ([]string, []map[string]any) {
	t.Helper()
	var out []string
	var updates []map[string]any
	for i, m := range msgs {
		var v struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Params struct {
				SessionID string         `json:"sessionId"`
				Update    map[string]any `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal(m, &v); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		switch {
		case i < 2:
			if !strings.Contains(string(m), `"Claude Code"`) && v.Method != "initialize" {
				t.Fatalf("batch does not open with initialize: %s", m)
			}
		case v.Method == "session/update":
			if !strings.HasPrefix(v.Params.SessionID, SessionPrefix) {
				t.Errorf("update for session %q", v.Params.SessionID)
			}
			out = append(out, "update:"+v.Params.Update["sessionUpdate"].(string))
			updates = append(updates, v.Params.Update)
		case v.Method != "":
			out = append(out, v.Method)
		default:
			out = append(out, "result")
		}
	}
	return out, updates
}

func TestTranslate(t *testing.T) {
	tasks := []Task{{ID: "1", Subject: "Implement user authentication", Status: "pending"}, {ID: "2", Subject: "Write the migration", Status: "pending"}}
	tests := []struct {
		fixture string
		state   State
		want    []string
		check   func(t *testing.T, u []map[string]any)
	}{
		{"session_start.json", State{}, []string{"session/new", "result", "update:agent_message_chunk"}, nil},
		{"user_prompt_submit.json", State{}, []string{"session/prompt"}, nil},
		{"user_prompt_submit.json", State{Announce: true}, []string{"session/new", "result", "session/prompt"}, nil},
		{"pre_todowrite.json", State{}, []string{"update:plan_update"}, func(t *testing.T, u []map[string]any) {
			entries := planOf(t, u[0], PlanTodos, "items")["entries"].([]any)
			got := entries[1].(map[string]any)
			if got["content"] != "Adding a token bucket limiter" || got["status"] != "in_progress" {
				t.Errorf("in-progress todo shows %v", got)
			}
			meta := got["_meta"].(map[string]any)["plandash"].(map[string]any)
			if meta["content"] != "Add a token bucket limiter" || meta["activeForm"] != "Adding a token bucket limiter" {
				t.Errorf("meta %v", meta)
			}
		}},
		{"post_taskcreate_10.json", State{Tasks: tasks}, []string{"update:plan_update"}, func(t *testing.T, u []map[string]any) {
			if ids := taskIDs(t, u[0]); !reflect.DeepEqual(ids, []string{"1", "2", "10"}) {
				t.Errorf("ids %v", ids)
			}
		}},
		{"post_taskupdate_deleted.json", State{Tasks: tasks}, []string{"update:plan_update"}, func(t *testing.T, u []map[string]any) {
			if ids := taskIDs(t, u[0]); !reflect.DeepEqual(ids, []string{"1"}) {
				t.Errorf("ids %v", ids)
			}
		}},
		{"post_taskupdate_deleted.json", State{Tasks: tasks[1:]}, []string{"update:plan_removed"}, nil},
		{"post_taskupdate_progress.json", State{}, []string{"update:plan_update"}, func(t *testing.T, u []map[string]any) {
			e := planOf(t, u[0], PlanTasks, "items")["entries"].([]any)[0].(map[string]any)
			if e["content"] != "Task 1" || e["status"] != "in_progress" {
				t.Errorf("update before create: %v", e)
			}
		}},
		{"task_completed.json", State{Tasks: tasks}, []string{"update:plan_update"}, func(t *testing.T, u []map[string]any) {
			e := planOf(t, u[0], PlanTasks, "items")["entries"].([]any)[0].(map[string]any)
			if e["status"] != "completed" {
				t.Errorf("%v", e)
			}
		}},
		{"task_created.json", State{}, []string{"update:plan_update"}, nil},
		{"permission_exitplanmode.json", State{}, []string{"update:plan_update"}, func(t *testing.T, u []map[string]any) {
			p := planOf(t, u[0], PlanMode, "markdown")
			if !strings.HasPrefix(p["content"].(string), "# Add rate limiting") {
				t.Errorf("%v", p)
			}
			meta := p["_meta"].(map[string]any)["plandash"].(map[string]any)
			if meta["planFilePath"] != "/home/dev/.claude/plans/add-rate-limiting-snug-otter.md" || meta["state"] != "proposed" {
				t.Errorf("meta %v", meta)
			}
		}},
		{"post_exitplanmode.json", State{}, []string{"update:plan_update"}, nil},
		{"pre_bash.json", State{}, []string{"update:tool_call"}, func(t *testing.T, u []map[string]any) {
			if u[0]["toolCallId"] != "toolu_01ABC123" || u[0]["kind"] != "execute" || u[0]["title"] != "Bash: Run test suite" || u[0]["status"] != "in_progress" {
				t.Errorf("%v", u[0])
			}
		}},
		{"post_bash.json", State{}, []string{"update:tool_call_update"}, func(t *testing.T, u []map[string]any) {
			if u[0]["status"] != "completed" || u[0]["rawOutput"] == nil {
				t.Errorf("%v", u[0])
			}
		}},
		{"notification.json", State{}, []string{"update:notice"}, nil},
		{"stop.json", State{}, []string{"update:agent_message_chunk"}, nil},
		{"session_end.json", State{}, []string{"session/close"}, nil},
		{"pre_compact.json", State{}, []string{"update:_claude_hook"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ev, err := Decode(fixture(t, tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := Translate(ev, tt.state)
			if err != nil {
				t.Fatal(err)
			}
			got, updates := shape(t, msgs)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, updates)
			}
		})
	}
}

func TestTranslateWithoutSession(t *testing.T) {
	if _, err := Translate(Event{HookEventName: EventStop}, State{}); err != ErrNoSession {
		t.Errorf("got %v", err)
	}
}

func TestTranslateBoundsToolOutput(t *testing.T) {
	huge := `{"stdout":"` + strings.Repeat("x", 1<<20) + `"}`
	ev, err := Decode([]byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t","tool_response":` + huge + `}`))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := Translate(ev, State{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(msgs[len(msgs)-1]); n > 2*maxToolJSON {
		t.Errorf("tool output not bounded: %d bytes", n)
	}
}

func planOf(t *testing.T, u map[string]any, id, typ string) map[string]any {
	t.Helper()
	p, ok := u["plan"].(map[string]any)
	if !ok || p["planId"] != id || p["type"] != typ {
		t.Fatalf("want a %s plan %q, got %v", typ, id, u)
	}
	return p
}

func taskIDs(t *testing.T, u map[string]any) []string {
	t.Helper()
	var ids []string
	for _, e := range planOf(t, u, PlanTasks, "items")["entries"].([]any) {
		ids = append(ids, e.(map[string]any)["_meta"].(map[string]any)["plandash"].(map[string]any)["taskId"].(string))
	}
	return ids
}

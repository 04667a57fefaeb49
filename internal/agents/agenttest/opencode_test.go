package agenttest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestOpenCodeRunTodoWrite: `opencode run --format json` runs a scripted todowrite and prints
// it as a completed tool_use event.
func TestOpenCodeRunTodoWrite(t *testing.T) {
	needAgents(t)
	start := time.Now()
	srv := NewModelServer(t)
	o := NewOpenCode(t, srv, nil)
	todos := []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"}}
	srv.Script(Turn{ToolUse: &ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}}, Turn{Text: "Agenttest turn over."})

	res := o.Run(3*time.Minute, "plan the parser")
	if res.Err != nil {
		t.Fatalf("opencode run: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	var found bool
	for line := range strings.Lines(res.Stdout) {
		var ev struct {
			Type string `json:"type"`
			Part struct {
				Tool  string `json:"tool"`
				State struct {
					Status string         `json:"status"`
					Input  map[string]any `json:"input"`
				} `json:"state"`
			} `json:"part"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "tool_use" || ev.Part.Tool != "todowrite" {
			continue
		}
		found = true
		if got, _ := ev.Part.State.Input["todos"].([]any); ev.Part.State.Status != "completed" || len(got) != 1 {
			t.Errorf("todowrite event = %s", line)
		}
	}
	if !found {
		t.Errorf("no todowrite tool_use event in:\n%s", res.Stdout)
	}
	t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
}

// TestOpenCodeServePlanExit: against `opencode serve`, a scripted todowrite shows on the
// event stream as todo.updated, and plan_exit (plan agent, OPENCODE_EXPERIMENTAL_PLAN_MODE)
// asks a question there that a client answers over HTTP; the answer reaches the model.
func TestOpenCodeServePlanExit(t *testing.T) {
	needAgents(t)
	tests := []struct {
		answer    string
		wantError bool
	}{
		{answer: "No", wantError: true},
		{answer: "Yes", wantError: false},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			start := time.Now()
			srv := NewModelServer(t)
			o := NewOpenCode(t, srv, nil)
			o.Env = append(o.Env, "OPENCODE_EXPERIMENTAL_PLAN_MODE=1")
			todos := []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"}}
			srv.Script(Turn{ToolUse: &ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}},
				Turn{ToolUse: &ToolUse{Name: "plan_exit", Input: map[string]any{}}},
				Turn{Text: "Agenttest turn over."})
			s := o.Serve()
			session := s.Prompt("plan", "plan the parser")

			ev := s.WaitEvent(2*time.Minute, "todo.updated", nil)
			var todo struct {
				SessionID string           `json:"sessionID"`
				Todos     []map[string]any `json:"todos"`
			}
			if err := json.Unmarshal(ev.Properties, &todo); err != nil || todo.SessionID != session || len(todo.Todos) != 1 || todo.Todos[0]["content"] != "Parse" {
				t.Errorf("todo.updated = %s (%v)", ev.Properties, err)
			}

			ev = s.WaitEvent(2*time.Minute, "question.asked", nil)
			var q struct {
				ID        string `json:"id"`
				Questions []struct {
					Question string `json:"question"`
				} `json:"questions"`
			}
			if err := json.Unmarshal(ev.Properties, &q); err != nil || q.ID == "" || len(q.Questions) != 1 {
				t.Fatalf("question.asked = %s (%v)", ev.Properties, err)
			}
			if !strings.Contains(q.Questions[0].Question, "/opencode/plans/") {
				t.Errorf("question %q names no plan file", q.Questions[0].Question)
			}
			s.Do("POST", "/question/"+q.ID+"/reply", map[string]any{"answers": [][]string{{tt.answer}}}, nil)

			// The tool's end state shows on the event stream: "No" rejects the question, which
			// fails plan_exit and ends the turn without asking the model again; "Yes" completes
			// it and the model gets its result.
			ev = s.WaitEvent(2*time.Minute, "message.part.updated", func(ev OpenCodeEvent) bool {
				p := planExitPart(ev)
				return p != nil && (p.State.Status == "completed" || p.State.Status == "error")
			})
			part := planExitPart(ev)
			if (part.State.Status == "error") != tt.wantError {
				t.Errorf("plan_exit part = %s, want error %v", ev.Properties, tt.wantError)
			}
			if !tt.wantError {
				exitID := part.CallID
				next := srv.WaitRequest(2*time.Minute, func(r Request) bool { _, ok := r.ToolResult(exitID); return ok })
				if res, _ := next.ToolResult(exitID); res.IsError || !strings.Contains(res.Content, "approved") {
					t.Errorf("plan_exit tool_result = %+v, want a success", res)
				}
			}
			t.Logf("plan_exit after %q: %s %q", tt.answer, part.State.Status, part.State.Output+part.State.Error)
			t.Logf("wall time %v", time.Since(start).Round(time.Millisecond))
		})
	}
}

// openCodeToolPart is the part of a message.part.updated event for a tool call.
type openCodeToolPart struct {
	Tool   string `json:"tool"`
	CallID string `json:"callID"`
	State  struct {
		Status string `json:"status"`
		Output string `json:"output"`
		Error  string `json:"error"`
	} `json:"state"`
}

// planExitPart returns the event's plan_exit tool part, or nil.
func planExitPart(ev OpenCodeEvent) *openCodeToolPart {
	var p struct {
		Part openCodeToolPart `json:"part"`
	}
	if json.Unmarshal(ev.Properties, &p) != nil || p.Part.Tool != "plan_exit" {
		return nil
	}
	return &p.Part
}

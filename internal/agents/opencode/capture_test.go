package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestCaptureEvents runs the REAL `opencode serve` against agenttest's scripted model through a
// todowrite, a plan_exit question (answered Yes) and a bash permission (answered once), and
// writes the /event stream to testdata/captured.jsonl (PLANDASH_CAPTURE=1 only).
func TestCaptureEvents(t *testing.T) {
	if os.Getenv("PLANDASH_CAPTURE") != "1" {
		t.Skip("set PLANDASH_CAPTURE=1 to capture events from the real opencode serve")
	}
	srv := agenttest.NewModelServer(t)
	o := agenttest.NewOpenCode(t, srv, map[string]any{"permission": map[string]any{"bash": "ask"}})
	o.Env = append(o.Env, "OPENCODE_EXPERIMENTAL_PLAN_MODE=1")
	todos := []any{
		map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"},
		map[string]any{"content": "Fuzz", "status": "pending", "priority": "low"},
	}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "plan_exit", Input: map[string]any{}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "bash", Input: map[string]any{"command": "echo hi", "description": "Say hi"}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	s := o.Serve()
	s.Prompt("plan", "plan the parser")
	ev := s.WaitEvent(2*time.Minute, "question.asked", nil)
	var q struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(ev.Properties, &q); err != nil {
		t.Fatal(err)
	}
	s.Do("POST", "/question/"+q.ID+"/reply", map[string]any{"answers": [][]string{{"Yes"}}}, nil)
	ev = s.WaitEvent(2*time.Minute, "permission.asked", nil)
	var p struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(ev.Properties, &p); err != nil {
		t.Fatal(err)
	}
	s.Do("POST", "/permission/"+p.ID+"/reply", map[string]any{"reply": "once"}, nil)
	s.WaitEvent(2*time.Minute, "session.idle", nil)
	f, err := os.Create(filepath.Join("testdata", "captured.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, e := range s.Events() {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

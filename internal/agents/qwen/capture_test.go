package qwen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestCaptureFixtures runs the REAL Qwen Code against agenttest's scripted model with a hook
// that records every event, and writes them to testdata/captured/ (PLANDASH_CAPTURE=1 only):
// the fixtures the other tests read are these payloads, as captured.
func TestCaptureFixtures(t *testing.T) {
	if os.Getenv("PLANDASH_CAPTURE") != "1" {
		t.Skip("set PLANDASH_CAPTURE=1 to capture fixtures from the real Qwen Code")
	}
	srv := agenttest.NewModelServer(t)
	rec := filepath.Join(t.TempDir(), "events.jsonl")
	hook := func(matcher string) []any {
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": agenttest.RecordHook(rec, "")}}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		return []any{g}
	}
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "SessionEnd", "UserPromptSubmit", "Stop", "Notification", "TodoCreated", "TodoCompleted"} {
		hooks[ev] = hook("")
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"} {
		hooks[ev] = hook("*")
	}
	q := agenttest.NewQwen(t, srv, map[string]any{"hooks": hooks, "tools": map[string]any{"todoWrite": map[string]any{"enabled": true}}})
	todos := []any{
		map[string]any{"id": "1", "content": "Read the parser", "status": "completed"},
		map[string]any{"id": "2", "content": "Write the tokenizer", "status": "in_progress"},
		map[string]any{"id": "3", "content": "Fuzz it", "status": "pending", "blockedBy": []any{"2"}},
	}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todo_write", Input: map[string]any{"todos": todos}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	res := q.Prompt(3*time.Minute, "plan the parser", "--approval-mode", "yolo")
	if res.Err != nil {
		t.Fatalf("qwen: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("no events recorded: %v\nstdout: %s\nstderr: %s\n%s", err, res.Stdout, res.Stderr, srv.Summary())
	}
	// Qwen runs hooks in parallel: two records can land on one line. One event a line again.
	var lines bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		lines.Write(v)
		lines.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join("testdata", "captured", "todos.jsonl"), lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	chats, _ := filepath.Glob(filepath.Join(q.Home, ".qwen", "projects", "*", "chats", "*.jsonl"))
	if len(chats) != 1 {
		t.Fatalf("chat files: %v", chats)
	}
	chat, err := os.ReadFile(chats[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "captured", "chat.jsonl"), chat, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.MainRequests() {
		t.Logf("tool results: %+v", r.ToolResults())
		var names []string
		if tools, ok := r.JSON()["tools"].([]any); ok {
			for _, tl := range tools {
				if m, ok := tl.(map[string]any); ok {
					names = append(names, m["name"].(string))
				}
			}
		}
		t.Logf("tools: %v", names)
	}
}

package claude

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
)

func needRealCLI(t *testing.T) {
	t.Helper()
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
}

// TestRealClaudeTranscriptDiscovered: the real Claude Code CLI, run against the scripted model
// with a throwaway HOME, writes its transcript while a Discoverer follows HOME/.claude/projects;
// the tasks it made, its tool call and its usage show on a real plans.Service on SQLite. Its
// hooks (SessionStart, UserPromptSubmit, PostToolUse, recorded as the CLI ran them) then reach
// the same Service, and the session stays one, seen both ways.
func TestRealClaudeTranscriptDiscovered(t *testing.T) {
	needRealCLI(t)
	srv := agenttest.NewModelServer(t)
	rec := filepath.Join(t.TempDir(), "hooks.jsonl")
	record := []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": agenttest.RecordHook(rec, "")}}}}
	recordTools := []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": agenttest.RecordHook(rec, "")}}}}
	c := agenttest.NewClaude(t, srv, map[string]any{"hooks": map[string]any{
		"SessionStart": record, "UserPromptSubmit": record, "PostToolUse": recordTools}})
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	runDiscoverer(t, svc.NewDiscoverer(filepath.Join(c.Home, ".claude", "projects"), DiscoverOptions{StateDir: t.TempDir(), Rescan: time.Hour}))

	srv.Script(
		agenttest.Turn{Text: "Planning.", ToolUse: &agenttest.ToolUse{Name: "TaskCreate", Input: map[string]any{"subject": "Write the parser", "description": "A tolerant one", "activeForm": "Writing the parser"}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "TaskCreate", Input: map[string]any{"subject": "Test it", "description": "With fuzzing", "activeForm": "Testing it"}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "TaskUpdate", Input: map[string]any{"taskId": "1", "status": "completed"}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "Bash", Input: map[string]any{"command": "echo hi", "description": "Say hi"}}},
		agenttest.Turn{Text: "Done."})
	res := c.Print(3*time.Minute, "plan the parser", "--model", "claude-sonnet-4-5", "--allowedTools", "Bash")
	if res.Err != nil {
		t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	transcripts, _ := filepath.Glob(filepath.Join(c.Home, ".claude", "projects", "*", "*.jsonl"))
	if len(transcripts) != 1 {
		t.Fatalf("transcripts %v", transcripts)
	}
	key := SessionKey(filepath.Base(transcripts[0][:len(transcripts[0])-len(".jsonl")]))
	// The tasks are done three turns before the transcript's end: wait for its last line too
	// (the fifth response's usage) before reading the rest.
	eventually(t, time.Minute, func() (bool, string) {
		got := planSummaryQuiet(p, key, PlanTasks)
		d, err := p.Session(context.Background(), key)
		if err != nil || d.Session.Usage == nil {
			return false, "tasks " + got + ", no usage yet"
		}
		u := d.Session.Usage
		return got == "Write the parser=completed,Test it=pending" && u.OutputTokens >= 50, fmt.Sprintf("tasks %s, usage %+v", got, *u)
	})
	d, err := p.Session(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Session
	if s.Cwd != c.Dir || s.Name() != AgentTitle || !slices.Equal(s.Via, []string{plans.ViaTranscript}) {
		t.Errorf("session %+v", s)
	}
	// Five model responses of 10 tokens in and 10 out (the scripted server's usage).
	if u := s.Usage; u == nil || u.Model != "claude-sonnet-4-5" || u.InputTokens != 50 || u.OutputTokens != 50 || u.Used != 20 {
		t.Errorf("usage %+v", s.Usage)
	}
	calls, err := p.ToolCalls(context.Background(), key)
	if err != nil || len(calls) != 1 || calls[0].Title != "Bash: Say hi" || calls[0].Status != "completed" {
		t.Errorf("tool calls %+v %v", calls, err)
	}

	// The hooks the CLI ran, to the same Service: still one session.
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if _, err := svc.Handle(context.Background(), sc.Bytes()); err != nil {
			t.Fatalf("hook event: %v", err)
		}
		n++
	}
	if n < 4 {
		t.Fatalf("hook events %d, want SessionStart, UserPromptSubmit and the tools'", n)
	}
	list, err := p.Sessions(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != key || !slices.Equal(list[0].Via, []string{plans.ViaTranscript, plans.ViaHooks}) {
		t.Fatalf("sessions %+v", list)
	}
	if got := planSummaryQuiet(p, key, PlanTasks); got != "Write the parser=completed,Test it=pending" {
		t.Errorf("tasks after hooks %q", got)
	}
}

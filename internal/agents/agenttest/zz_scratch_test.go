package agenttest

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestZZScratchTranscript(t *testing.T) {
	needAgents(t)
	srv := NewModelServer(t)
	c := NewClaude(t, srv, nil)
	srv.Script(
		Turn{Text: "Let me plan.", ToolUse: &ToolUse{Name: "TaskCreate", Input: map[string]any{"subject": "Write the parser", "description": "A tolerant one", "activeForm": "Writing the parser"}}},
		Turn{ToolUse: &ToolUse{Name: "TaskUpdate", Input: map[string]any{"taskId": "1", "status": "in_progress"}}},
		Turn{ToolUse: &ToolUse{Name: "Bash", Input: map[string]any{"command": "echo hi", "description": "Say hi"}}},
		Turn{Text: "done"})
	res := c.Print(3*time.Minute, "plan the parser", "--model", "claude-sonnet-4-5", "--allowedTools", "Bash")
	t.Logf("err %v out %s", res.Err, res.Stdout)
	out, _ := exec.Command("sh", "-c", "find "+c.Home+" -type f | grep -v node_modules; rm -rf /tmp/cc1; cp -r "+c.Home+"/.claude /tmp/cc1").CombinedOutput()
	t.Log(string(out))
	srv2 := NewModelServer(t)
	c2 := NewClaude(t, srv2, nil)
	c2.Env = append(c2.Env, "CLAUDE_CODE_ENABLE_TASKS=0")
	srv2.Script(
		Turn{ToolUse: &ToolUse{Name: "TodoWrite", Input: map[string]any{"todos": []any{map[string]any{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}}}}},
		Turn{ToolUse: &ToolUse{Name: "AskUserQuestion", Input: map[string]any{"questions": []any{map[string]any{"question": "Which parser?", "header": "Parser", "multiSelect": false, "options": []any{map[string]any{"label": "A", "description": "a"}, map[string]any{"label": "B", "description": "b"}}}}}}},
		Turn{Text: "done"})
	res = c2.Print(3*time.Minute, "todo the parser", "--model", "claude-sonnet-4-5")
	t.Logf("err %v out %s", res.Err, res.Stdout)
	out, _ = exec.Command("sh", "-c", "find "+c2.Home+" -type f; rm -rf /tmp/cc2; cp -r "+c2.Home+"/.claude /tmp/cc2").CombinedOutput()
	t.Log(string(out))
	_ = os.Getenv
}

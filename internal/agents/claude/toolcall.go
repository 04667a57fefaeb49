package claude

import (
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// toolCall shows any other tool as an ACP tool call: PreToolUse announces it, PostToolUse
// completes it (or fails it). A PostToolUse whose PreToolUse plandash never saw still creates
// the call, because the domain upserts tool_call_update.
func (b *batch) toolCall(ev Event) {
	if ev.HookEventName == EventPermissionRequest {
		// The gate handles ExitPlanMode; other permission prompts are only noted.
		b.raw(ev)
		return
	}
	id := ev.ToolUseID
	if id == "" {
		b.raw(ev)
		return
	}
	in := fields(ev.ToolInput)
	meta := map[string]any{"claudeCode": map[string]any{"toolName": ev.ToolName, "agentId": ev.AgentID}}
	u := map[string]any{"toolCallId": id, "title": toolTitle(ev.ToolName, in), "kind": toolKind(ev.ToolName),
		"name": ev.ToolName, "_meta": meta}
	if p, ok := strField(in, "file_path", "notebook_path", "path"); ok && strings.HasPrefix(p, "/") {
		u["locations"] = []any{map[string]any{"path": p}}
	}
	if len(ev.ToolInput) > 0 {
		u["rawInput"] = bounded(ev.ToolInput, maxToolJSON)
	}
	switch ev.HookEventName {
	case EventPreToolUse:
		u["sessionUpdate"], u["status"] = "tool_call", "in_progress"
	case EventPostToolUse:
		u["sessionUpdate"], u["status"] = "tool_call_update", "completed"
		if len(ev.ToolResponse) > 0 {
			u["rawOutput"] = bounded(ev.ToolResponse, maxToolJSON)
		}
	default: // PostToolUseFailure
		u["sessionUpdate"], u["status"] = "tool_call_update", "failed"
		if ev.Error != "" {
			u["content"] = []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": hookkit.Truncate(ev.Error, maxPromptText)}}}
		}
	}
	b.update(u)
}

// toolKind maps Claude Code's tools onto ACP's tool kinds, which pages draw with icons.
func toolKind(name string) string {
	switch name {
	case "Read", "NotebookRead":
		return "read"
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return "edit"
	case "Bash", "BashOutput", "KillShell", "PowerShell":
		return "execute"
	case "Grep", "Glob", "LS", "ToolSearch":
		return "search"
	case "WebFetch", "WebSearch":
		return "fetch"
	case "Task", "Agent":
		return "think"
	case ToolExitPlanMode, "EnterPlanMode":
		return "switch_mode"
	}
	return "other"
}

// toolTitle is a one-line label: the tool and what it works on.
func toolTitle(name string, in map[string]json.RawMessage) string {
	for _, k := range []string{"description", "file_path", "notebook_path", "command", "pattern", "url", "query", "prompt", "path"} {
		if s, ok := strField(in, k); ok && strings.TrimSpace(s) != "" {
			s = strings.Join(strings.Fields(s), " ")
			return name + ": " + hookkit.Truncate(s, 120)
		}
	}
	if name == "" {
		return "Tool call"
	}
	return name
}

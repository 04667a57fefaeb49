package codex

import (
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// toolCall shows a tool call Codex made; its output completes it (toolResult).
func (b *batch) toolCall(callID, name string, input json.RawMessage) {
	if callID == "" {
		return
	}
	u := map[string]any{"sessionUpdate": "tool_call", "toolCallId": callID, "status": "in_progress",
		"title": toolTitle(name, input), "kind": toolKind(name), "name": name,
		"_meta": map[string]any{"codex": map[string]any{"toolName": name}}}
	if len(input) > 0 {
		u["rawInput"] = bounded(input, maxToolJSON)
	}
	b.update(u)
}

// toolResult completes a call with its output. Codex records a failed command's output too;
// an output object with "success": false marks the call failed.
func (b *batch) toolResult(callID string, output json.RawMessage) {
	if callID == "" {
		return
	}
	status := "completed"
	var o struct {
		Success *bool `json:"success"`
	}
	if json.Unmarshal(output, &o) == nil && o.Success != nil && !*o.Success {
		status = "failed"
	}
	u := map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": callID, "status": status}
	if len(output) > 0 {
		u["rawOutput"] = bounded(output, maxToolJSON)
	}
	b.update(u)
}

// toolKind maps Codex's tools onto ACP's tool kinds, which pages draw with icons.
func toolKind(name string) string {
	switch name {
	case "shell", "shell_command", "exec_command", "local_shell", "write_stdin", "unified_exec":
		return "execute"
	case "apply_patch":
		return "edit"
	case "view_image", "read_file", "list_dir":
		return "read"
	case "grep_files", "tool_search":
		return "search"
	case "web_search":
		return "fetch"
	}
	return "other"
}

// toolTitle is a one-line label: the tool and what it works on.
func toolTitle(name string, input json.RawMessage) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(input, &m)
	for _, k := range []string{"cmd", "command", "path", "file_path", "query", "pattern"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		var s string
		var argv []string
		switch {
		case json.Unmarshal(v, &s) == nil:
		case json.Unmarshal(v, &argv) == nil:
			s = strings.Join(argv, " ")
		}
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			return name + ": " + hookkit.Truncate(s, 120)
		}
	}
	if name == "" {
		return "Tool call"
	}
	return name
}

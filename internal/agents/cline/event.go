// Package cline is plandash's adapter for Cline's CLI (npm cline, 3.x, built on the Cline SDK).
// Cline runs hook files from its hooks directories (~/.cline/hooks, <project>/.cline/hooks):
// an executable named after the event (TaskStart, PreToolUse, …, with an optional extension),
// fed the event as JSON on stdin, whose JSON stdout may stop the run, add context or rewrite a
// tool's input. plandash installs one small script per event that runs `plandash hook cline`.
// This package decodes those events into the same ACP updates every other agent's become, and
// holds switch_to_act_mode — Cline leaving plan mode to implement its plan — at the gate.
//
// Cline 3.x keeps no todo list (the focus chain of the older extension is gone), so what shows
// is the session, its prompts and tool calls, and the plan a plan-mode turn ends with.
package cline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxEventBytes bounds one hook payload. PostToolUse carries tool output (a file Cline read),
// so the bound is generous, but a runaway payload is refused, not buffered.
const MaxEventBytes = 16 << 20

// MaxID bounds a payload's session id and hook name: Cline's are short generated ids.
const MaxID = 256

// Hook names as the payload's hookName says them, and the hook file each comes from.
const (
	HookTaskStart    = "agent_start"      // TaskStart
	HookTaskResume   = "agent_resume"     // TaskResume
	HookTaskCancel   = "agent_abort"      // TaskCancel
	HookTaskComplete = "agent_end"        // TaskComplete
	HookTaskError    = "agent_error"      // TaskError
	HookPreToolUse   = "tool_call"        // PreToolUse
	HookPostToolUse  = "tool_result"      // PostToolUse
	HookPromptSubmit = "prompt_submit"    // UserPromptSubmit
	HookPreCompact   = "pre_compact"      // PreCompact
	HookShutdown     = "session_shutdown" // SessionShutdown
)

// ToolSwitchToAct is the tool a plan-mode Cline calls to leave plan mode and implement.
const ToolSwitchToAct = "switch_to_act_mode"

// ToolAskQuestion is Cline's question tool.
const ToolAskQuestion = "ask_question"

// Plan ids of the plans a Cline session shows.
const PlanMode = "plan" // the plan a plan-mode turn ended with

// AgentName and AgentTitle name Cline in sessions and at the gate.
const (
	AgentName  = "cline"
	AgentTitle = "Cline"
)

// SessionPrefix starts every plandash session id that comes from Cline, keeping Cline's ids
// apart from other agents' ids, which may look alike.
const SessionPrefix = "cline:"

// SessionKey is the plandash session id of a Cline session.
func SessionKey(clineSessionID string) string { return SessionPrefix + clineSessionID }

// ToolCall is a PreToolUse event's call.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResult is a PostToolUse event's record of the call.
type ToolResult struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Input      json.RawMessage `json:"input,omitempty"`
	Error      string          `json:"error,omitempty"`
	DurationMs float64         `json:"durationMs,omitempty"`
}

// Event is one hook payload (@cline/shared HookEventPayload). Raw is the payload as sent.
type Event struct {
	HookName       string `json:"hookName"`
	Timestamp      string `json:"timestamp,omitempty"`
	TaskID         string `json:"taskId"`
	ClineVersion   string `json:"clineVersion,omitempty"`
	SessionContext struct {
		RootSessionID string `json:"rootSessionId,omitempty"`
	} `json:"sessionContext"`
	WorkspaceRoots []string `json:"workspaceRoots,omitempty"`
	WorkspaceInfo  struct {
		RootPath string `json:"rootPath,omitempty"`
	} `json:"workspaceInfo"`
	AgentID       string      `json:"agent_id,omitempty"`
	ParentAgentID *string     `json:"parent_agent_id,omitempty"`
	ToolCall      *ToolCall   `json:"tool_call,omitempty"`
	ToolResult    *ToolResult `json:"tool_result,omitempty"`
	Turn          *struct {
		OutputText string `json:"outputText"`
		Status     string `json:"status"`
	} `json:"turn,omitempty"`
	UserPromptSubmit *struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit,omitempty"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`

	// Added by `plandash hook cline` on the agent's machine.
	Host string `json:"plandash_host,omitempty"`
	// Mode is "plan" or "act": the mode of the session's last prompt, read by the hook from
	// Cline's messages file (the payload does not say it).
	Mode string `json:"plandash_mode,omitempty"`
	// Plan is the plan switch_to_act_mode would implement, read by the hook from Cline's
	// messages file.
	Plan string `json:"plandash_plan,omitempty"`
	// Interactive says whether the session runs in Cline's terminal UI, read by the hook from
	// the session's file; nil when not known.
	Interactive *bool `json:"plandash_interactive,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// SessionID is the Cline session the event belongs to: the root session (the id `cline
// history` lists and ~/.cline/data/sessions names), else the task.
func (ev Event) SessionID() string {
	if ev.SessionContext.RootSessionID != "" {
		return ev.SessionContext.RootSessionID
	}
	return ev.TaskID
}

// Time is when Cline sent the event; zero when it did not say.
func (ev Event) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, ev.Timestamp)
	return t
}

// Cwd is the workspace the session runs in.
func (ev Event) Cwd() string {
	if ev.WorkspaceInfo.RootPath != "" {
		return ev.WorkspaceInfo.RootPath
	}
	if len(ev.WorkspaceRoots) > 0 {
		return ev.WorkspaceRoots[0]
	}
	return ""
}

// Decode reads one hook payload. It fails, saying where, when the body is not one JSON object
// of Cline's shape, or names no hook or session.
func Decode(body []byte) (Event, error) {
	body = bytes.TrimSpace(body)
	if len(body) > MaxEventBytes {
		return Event{}, fmt.Errorf("cline hook payload: %d bytes, over the %d byte limit", len(body), MaxEventBytes)
	}
	if !utf8.Valid(body) {
		return Event{}, fmt.Errorf("cline hook payload: not UTF-8")
	}
	var ev Event
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("cline hook payload: %w", err)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("cline hook payload: data after the JSON object at byte %d", dec.InputOffset())
	}
	switch {
	case ev.HookName == "":
		return Event{}, fmt.Errorf("cline hook payload: no hookName")
	case ev.SessionID() == "":
		return Event{}, fmt.Errorf("cline hook payload %q: no taskId or sessionContext.rootSessionId", ev.HookName)
	case len(ev.SessionID()) > MaxID || len(ev.HookName) > MaxID:
		return Event{}, fmt.Errorf("cline hook payload: hookName or session id over %d bytes", MaxID)
	}
	ev.Raw = json.RawMessage(body)
	return ev, nil
}

// IsGateEvent reports whether ev is Cline leaving plan mode: PreToolUse of switch_to_act_mode.
func IsGateEvent(ev Event) bool {
	return ev.HookName == HookPreToolUse && ev.ToolCall != nil && ev.ToolCall.Name == ToolSwitchToAct
}

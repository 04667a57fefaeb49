// Package qwen is plandash's adapter for Qwen Code running in a terminal: it decodes the
// payloads Qwen Code's command hooks send (Claude Code's hook shape: PreToolUse, PostToolUse,
// PermissionRequest, Stop, …), turns them into the same ACP JSON-RPC messages the ingest API
// takes, holds plan-mode plans (exit_plan_mode) and questions (ask_user_question) at the
// PermissionRequest hook, which runs before Qwen Code's own dialog, and installs the hooks into
// Qwen Code's settings.
package qwen

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxEventBytes bounds one hook payload. PostToolUse payloads carry tool output (a file the
// model read), so the bound is generous, but a runaway payload is refused, not buffered.
const MaxEventBytes = 16 << 20

// Hook event names (Qwen Code docs/users/features/hooks.md). Others are kept as raw activity.
const (
	EventSessionStart       = "SessionStart"
	EventSessionEnd         = "SessionEnd"
	EventUserPromptSubmit   = "UserPromptSubmit"
	EventStop               = "Stop"
	EventPreToolUse         = "PreToolUse"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventPermissionRequest  = "PermissionRequest"
	EventNotification       = "Notification"
)

// Tool names whose calls carry plans or questions (packages/core/src/tools/tool-names.ts).
const (
	ToolTodoWrite       = "todo_write"
	ToolExitPlanMode    = "exit_plan_mode"
	ToolAskUserQuestion = "ask_user_question"
)

// Plan ids of the plans a Qwen Code session shows.
const (
	PlanTodos = "todos" // todo_write's list, replaced whole by each call
	PlanMode  = "plan"  // the plan-mode plan exit_plan_mode proposes
)

// AgentName and AgentTitle name Qwen Code in sessions and at the gate.
const (
	AgentName  = "qwen-code"
	AgentTitle = "Qwen Code"
)

// SessionPrefix starts every plandash session id that comes from Qwen Code hooks, keeping
// Qwen's ids apart from other agents' ids, which may look alike.
const SessionPrefix = "qwen:"

// SessionKey is the plandash session id of a Qwen Code session.
func SessionKey(qwenSessionID string) string { return SessionPrefix + qwenSessionID }

// Event is one hook payload. Known fields are lifted out; Raw is the whole payload as sent, so
// fields plandash does not know yet are never lost.
type Event struct {
	SessionID        string          `json:"session_id,omitempty"`
	TranscriptPath   string          `json:"transcript_path,omitempty"`
	Cwd              string          `json:"cwd,omitempty"`
	HookEventName    string          `json:"hook_event_name,omitempty"`
	PermissionMode   string          `json:"permission_mode,omitempty"`
	ToolName         string          `json:"tool_name,omitempty"`
	ToolInput        json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse     json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID        string          `json:"tool_use_id,omitempty"`
	Error            string          `json:"error,omitempty"`                  // PostToolUseFailure
	Prompt           string          `json:"prompt,omitempty"`                 // UserPromptSubmit: what goes to the model
	SubmittedPrompt  string          `json:"submitted_prompt,omitempty"`       // UserPromptSubmit: what the person typed
	LastMessage      string          `json:"last_assistant_message,omitempty"` // Stop
	Message          string          `json:"message,omitempty"`                // Notification
	Title            string          `json:"title,omitempty"`                  // Notification
	NotificationType string          `json:"notification_type,omitempty"`      // Notification
	Source           string          `json:"source,omitempty"`                 // SessionStart: startup, resume, clear, compact
	Reason           string          `json:"reason,omitempty"`                 // SessionEnd
	Model            string          `json:"model,omitempty"`                  // SessionStart
	// Host is added by `plandash hook qwen` on the agent's machine, since the dashboard may run
	// elsewhere.
	Host string          `json:"plandash_host,omitempty"`
	Raw  json.RawMessage `json:"-"`
}

// DecodeError says why a payload is not a hook event.
type DecodeError struct{ Message string }

// Error names the problem.
func (e *DecodeError) Error() string { return "qwen hook payload: " + e.Message }

// Decode reads one hook payload. It fails only when the payload is not a JSON object (or is
// too large or not UTF-8); fields of an unexpected type are ignored rather than failing the
// event, because a hook must never break the agent over one odd field.
func Decode(b []byte) (Event, error) {
	p, err := hookkit.DecodePayload(b, MaxEventBytes)
	if err != nil {
		return Event{}, &DecodeError{err.Error()}
	}
	t := p.Raw
	str := p.String
	obj := p.Value
	return Event{
		SessionID: str("session_id"), TranscriptPath: str("transcript_path"), Cwd: str("cwd"),
		HookEventName: str("hook_event_name"), PermissionMode: str("permission_mode"), ToolName: str("tool_name"),
		ToolInput: obj("tool_input"), ToolResponse: obj("tool_response"), ToolUseID: str("tool_use_id"), Error: str("error"),
		Prompt: str("prompt"), SubmittedPrompt: str("submitted_prompt"), LastMessage: str("last_assistant_message"),
		Message: str("message"), Title: str("title"), NotificationType: str("notification_type"),
		Source: str("source"), Reason: str("reason"), Model: str("model"), Host: str("plandash_host"),
		Raw: bytes.Clone(t),
	}, nil
}

// Package gemini is plandash's adapter for Gemini CLI running in a terminal: it decodes the
// payloads Gemini CLI's command hooks send, turns them into the same ACP JSON-RPC messages the
// ingest API takes (so every page, the history and the socket work unchanged), holds plan-mode
// plans (exit_plan_mode) at the approval gate, and installs the hooks and the policy the gate
// needs into Gemini CLI's settings.
package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxEventBytes bounds one hook payload. AfterTool payloads carry tool output (a file the
// model read), so the bound is generous, but a runaway payload is refused, not buffered.
const MaxEventBytes = 16 << 20

// Hook event names (Gemini CLI docs/hooks/reference.md). Others are kept as raw activity.
const (
	EventSessionStart = "SessionStart"
	EventSessionEnd   = "SessionEnd"
	EventBeforeAgent  = "BeforeAgent"
	EventAfterAgent   = "AfterAgent"
	EventBeforeTool   = "BeforeTool"
	EventAfterTool    = "AfterTool"
	EventNotification = "Notification"
	EventPreCompress  = "PreCompress"
)

// Tool names whose calls carry plans.
const (
	ToolWriteTodos   = "write_todos"
	ToolExitPlanMode = "exit_plan_mode"
)

// Plan ids of the plans a Gemini CLI session shows.
const (
	PlanTodos = "todos" // write_todos' list, replaced whole by each call
	PlanMode  = "plan"  // the plan-mode plan exit_plan_mode proposes
)

// AgentName and AgentTitle name Gemini CLI in sessions and at the gate.
const (
	AgentName  = "gemini-cli"
	AgentTitle = "Gemini CLI"
)

// SessionPrefix starts every plandash session id that comes from Gemini CLI hooks, keeping
// Gemini's ids apart from other agents' ids, which may look alike.
const SessionPrefix = "gemini:"

// SessionKey is the plandash session id of a Gemini CLI session.
func SessionKey(geminiSessionID string) string { return SessionPrefix + geminiSessionID }

// Event is one hook payload. Known fields are lifted out; Raw is the whole payload as sent, so
// fields plandash does not know yet are never lost. The json tags are the wire names, so an
// Event marshals back into a payload Decode reads the same.
type Event struct {
	SessionID        string          `json:"session_id,omitempty"`
	TranscriptPath   string          `json:"transcript_path,omitempty"`
	Cwd              string          `json:"cwd,omitempty"`
	HookEventName    string          `json:"hook_event_name,omitempty"`
	Timestamp        string          `json:"timestamp,omitempty"`
	ToolName         string          `json:"tool_name,omitempty"`
	ToolInput        json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse     json.RawMessage `json:"tool_response,omitempty"`
	Prompt           string          `json:"prompt,omitempty"`
	PromptResponse   string          `json:"prompt_response,omitempty"`
	Message          string          `json:"message,omitempty"`
	NotificationType string          `json:"notification_type,omitempty"`
	Source           string          `json:"source,omitempty"`  // SessionStart: startup, resume, clear
	Reason           string          `json:"reason,omitempty"`  // SessionEnd
	Trigger          string          `json:"trigger,omitempty"` // PreCompress
	// Host, PlansDir, Plan and PlanPath are added by `plandash hook gemini` on the agent's
	// machine: where it runs, Gemini's plans directory ($GEMINI_PLANS_DIR), and for
	// exit_plan_mode the plan file it read there, since the dashboard may run elsewhere.
	Host     string          `json:"plandash_host,omitempty"`
	PlansDir string          `json:"plandash_plans_dir,omitempty"`
	Plan     string          `json:"plandash_plan,omitempty"`
	PlanPath string          `json:"plandash_plan_path,omitempty"`
	Raw      json.RawMessage `json:"-"`
}

// DecodeError says why a payload is not a hook event.
type DecodeError struct{ Message string }

// Error names the problem.
func (e *DecodeError) Error() string { return "gemini hook payload: " + e.Message }

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
		HookEventName: str("hook_event_name"), Timestamp: str("timestamp"), ToolName: str("tool_name"),
		ToolInput: obj("tool_input"), ToolResponse: obj("tool_response"),
		Prompt: str("prompt"), PromptResponse: str("prompt_response"), Message: str("message"),
		NotificationType: str("notification_type"), Source: str("source"), Reason: str("reason"), Trigger: str("trigger"),
		Host: str("plandash_host"), PlansDir: str("plandash_plans_dir"), Plan: str("plandash_plan"), PlanPath: str("plandash_plan_path"),
		Raw: bytes.Clone(t),
	}, nil
}

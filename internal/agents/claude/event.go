// Package claude is plandash's adapter for Claude Code running in a terminal: it decodes the
// payloads Claude Code's hooks send, turns them into the same ACP JSON-RPC messages the ingest
// API takes (so every page, the history and the socket work unchanged), holds plan-mode plans
// at the approval gate, and installs the hooks into Claude Code's settings.
package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxEventBytes bounds one hook payload. Payloads carry tool inputs and outputs (a file Claude
// read, a long plan), so the bound is generous, but a runaway payload is refused, not buffered.
const MaxEventBytes = 16 << 20

// Hook event names plandash acts on (docs/hooks.md). Others are kept as raw activity.
const (
	EventSessionStart       = "SessionStart"
	EventSessionEnd         = "SessionEnd"
	EventUserPromptSubmit   = "UserPromptSubmit"
	EventPreToolUse         = "PreToolUse"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventPermissionRequest  = "PermissionRequest"
	EventTaskCreated        = "TaskCreated"
	EventTaskCompleted      = "TaskCompleted"
	EventNotification       = "Notification"
	EventStop               = "Stop"
	EventSubagentStop       = "SubagentStop"
)

// Tool names whose calls carry plans.
const (
	ToolTodoWrite    = "TodoWrite"
	ToolTaskCreate   = "TaskCreate"
	ToolTaskUpdate   = "TaskUpdate"
	ToolExitPlanMode = "ExitPlanMode"
	// ToolAskUserQuestion asks the person questions; a PreToolUse hook may answer them.
	ToolAskUserQuestion = "AskUserQuestion"
)

// Event is one hook payload. Known fields are lifted out; Raw is the whole payload as sent, so
// fields plandash does not know yet are never lost. The json tags are the wire names, so an
// Event marshals back into a payload Decode reads the same.
type Event struct {
	SessionID            string          `json:"session_id,omitempty"`
	PromptID             string          `json:"prompt_id,omitempty"`
	TranscriptPath       string          `json:"transcript_path,omitempty"`
	Cwd                  string          `json:"cwd,omitempty"`
	PermissionMode       string          `json:"permission_mode,omitempty"`
	HookEventName        string          `json:"hook_event_name,omitempty"`
	ToolName             string          `json:"tool_name,omitempty"`
	ToolInput            json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse         json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID            string          `json:"tool_use_id,omitempty"`
	Prompt               string          `json:"prompt,omitempty"`
	Message              string          `json:"message,omitempty"`
	Title                string          `json:"title,omitempty"`
	NotificationType     string          `json:"notification_type,omitempty"`
	LastAssistantMessage string          `json:"last_assistant_message,omitempty"`
	AgentID              string          `json:"agent_id,omitempty"`
	AgentType            string          `json:"agent_type,omitempty"`
	Source               string          `json:"source,omitempty"` // SessionStart: startup, resume, clear, compact
	Reason               string          `json:"reason,omitempty"` // SessionEnd
	Error                string          `json:"error,omitempty"`  // PostToolUseFailure
	TaskID               string          `json:"task_id,omitempty"`
	TaskSubject          string          `json:"task_subject,omitempty"`
	TaskDescription      string          `json:"task_description,omitempty"`
	// Host is added by `plandash hook claude`: the machine the agent runs on, which may not be
	// the one the dashboard runs on.
	Host string          `json:"plandash_host,omitempty"`
	Raw  json.RawMessage `json:"-"`
}

// DecodeError says why a payload is not a hook event and where: Offset is the byte offset of
// the problem in the payload, -1 when it is about the payload as a whole.
type DecodeError struct {
	Offset  int64
	Message string
}

// Error names the problem and its byte offset.
func (e *DecodeError) Error() string {
	if e.Offset < 0 {
		return "claude hook payload: " + e.Message
	}
	return fmt.Sprintf("claude hook payload: %s (at byte %d)", e.Message, e.Offset)
}

// Decode reads one hook payload. It fails only when the payload is not a JSON object (or is
// too large); fields of an unexpected type are ignored rather than failing the event, because
// a hook must never break the agent over one odd field. Task ids are read in every spelling the
// model emits (task_id, taskId, id).
func Decode(b []byte) (Event, error) {
	if len(b) > MaxEventBytes {
		return Event{}, &DecodeError{Offset: MaxEventBytes, Message: fmt.Sprintf("over the %d MiB limit", MaxEventBytes>>20)}
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return Event{}, &DecodeError{Offset: -1, Message: "empty"}
	}
	if !utf8.Valid(t) {
		return Event{}, &DecodeError{Offset: badUTF8(b), Message: "not valid UTF-8"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return Event{}, jsonError(b, t, err)
	}
	if m == nil {
		return Event{}, &DecodeError{Offset: -1, Message: "must be a JSON object, not null"}
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if v, ok := m[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
				return s
			}
		}
		return ""
	}
	obj := func(k string) json.RawMessage {
		v := bytes.TrimSpace(m[k])
		if len(v) == 0 || bytes.Equal(v, []byte("null")) {
			return nil
		}
		return v
	}
	ev := Event{
		SessionID: str("session_id", "sessionId"), PromptID: str("prompt_id"),
		TranscriptPath: str("transcript_path"), Cwd: str("cwd"), PermissionMode: str("permission_mode"),
		HookEventName: str("hook_event_name"), ToolName: str("tool_name"),
		ToolInput: obj("tool_input"), ToolResponse: obj("tool_response"), ToolUseID: str("tool_use_id"),
		Prompt: str("prompt"), Message: str("message"), Title: str("title"),
		NotificationType: str("notification_type"), LastAssistantMessage: str("last_assistant_message"),
		AgentID: str("agent_id"), AgentType: str("agent_type"), Source: str("source"), Reason: str("reason"),
		Error:  str("error"),
		TaskID: idString(m, "task_id", "taskId", "id"), TaskSubject: str("task_subject", "subject"),
		TaskDescription: str("task_description", "description"), Host: str("plandash_host"),
		Raw: bytes.Clone(t),
	}
	return ev, nil
}

// idString reads an id that may come as a string or a number ("3" and 3 are the same task).
func idString(m map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		v := bytes.TrimSpace(m[k])
		if len(v) == 0 {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
		var n json.Number
		if json.Unmarshal(v, &n) == nil {
			return n.String()
		}
	}
	return ""
}

// jsonError turns encoding/json's error into one that names the byte offset in b (the
// untrimmed payload), so the hook's log points at the problem.
func jsonError(b, t []byte, err error) error {
	lead := int64(len(b) - len(bytes.TrimLeft(b, " \t\r\n")))
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the bad one included; point at the bad byte itself.
		off := se.Offset
		if off > 0 && !strings.Contains(se.Error(), "unexpected end") {
			off--
		}
		return &DecodeError{Offset: lead + off, Message: "malformed JSON: " + se.Error()}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &DecodeError{Offset: lead, Message: "must be a JSON object, not " + te.Value}
	}
	return &DecodeError{Offset: -1, Message: err.Error()}
}

func badUTF8(b []byte) int64 {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return int64(i)
		}
		i += n
	}
	return -1
}

// SessionKey is the plandash session id of a Claude Code session. The prefix keeps Claude's ids
// apart from ACP agents' ids, which come from other programs and may look alike.
func SessionKey(claudeSessionID string) string { return SessionPrefix + claudeSessionID }

// SessionPrefix starts every plandash session id that comes from Claude Code hooks.
const SessionPrefix = "claude-code:"

// AgentName and AgentTitle name Claude Code in sessions and at the gate.
const (
	AgentName  = "claude-code"
	AgentTitle = "Claude Code"
)

package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agents/settingsfile"
	"github.com/plandash/plandash/internal/files"
)

// MaxPlanFile bounds how much of a plan file is read for the gate.
const MaxPlanFile = 512 << 10

// Permission modes a person may approve a plan into, mirroring the terminal's plan-mode choices
// ("Yes, and auto-accept edits" / "Yes, and manually approve edits").
const (
	ModeAcceptEdits = "acceptEdits"
	ModeDefault     = "default"
)

// IsGateEvent reports whether ev is the plan-approval prompt plandash can answer: a
// PermissionRequest for ExitPlanMode.
func IsGateEvent(ev Event) bool {
	return ev.HookEventName == EventPermissionRequest && ev.ToolName == ToolExitPlanMode
}

// PlanRequest is a plan-mode plan waiting for approval, as read from the gate event.
type PlanRequest struct {
	SessionID string // plandash's session id (SessionKey)
	Markdown  string // the plan; empty when it could neither be found nor read
	FilePath  string
	// Unreadable says why the plan file was not read, for the person deciding.
	Unreadable string
	// Input is the event's tool_input, echoed as updatedInput when the plan is approved.
	Input json.RawMessage
}

// NewPlanRequest reads the plan of a gate event: tool_input.plan, or else the file at
// tool_input.planFilePath when it lies under dirs. The directories are the server's, never the
// event's: its cwd does not make a file readable. Unreadable says why a file was not read.
func NewPlanRequest(ev Event, dirs files.PlanDirs) PlanRequest {
	p := ExitPlan(ev.ToolInput, nil)
	pr := PlanRequest{SessionID: SessionKey(ev.SessionID), Markdown: p.Markdown, FilePath: p.FilePath, Input: ev.ToolInput}
	if len(bytes.TrimSpace(pr.Input)) == 0 {
		pr.Input = json.RawMessage("{}")
	}
	if strings.TrimSpace(pr.Markdown) != "" || p.FilePath == "" {
		return pr
	}
	md, err := dirs.Read(p.FilePath, MaxPlanFile)
	if err != nil {
		pr.Unreadable = err.Error()
		return pr
	}
	pr.Markdown = string(md)
	return pr
}

// Decision is how Claude Code's plan prompt is answered. A zero Decision is "no decision": the
// hook prints nothing and the terminal's own prompt decides.
type Decision struct {
	// Behavior is "allow", "deny", or "" for no decision.
	Behavior string
	// Mode, on allow, switches the session's permission mode (ModeAcceptEdits, ModeDefault).
	Mode string
	// Message, on deny, is what Claude reads: the reason it should keep planning.
	Message string
	// Input, on allow, is echoed as updatedInput: without it Claude Code ignores the allow. Its
	// plan member is what Claude implements (see ApproveEdited).
	Input json.RawMessage
}

// ApproveEdited is the decision for a plan the person edited: an allow whose updatedInput is
// the event's tool_input with plan replaced by the edited markdown. Claude Code (verified on
// 2.1.328 by agenttest's TestClaudePlanModeGate) then writes the edited plan over the plan file
// and hands it to the model as "## Approved Plan (edited by user)", so the edit is what Claude
// implements, in one round trip. An empty edit approves the plan as it was.
func ApproveEdited(input json.RawMessage, editedPlan, mode string) Decision {
	return Decision{Behavior: "allow", Mode: mode, Input: WithPlan(input, editedPlan)}
}

// WithPlan returns tool_input with its "plan" member set to plan, every other member (such as
// planFilePath) kept as written and in order. Input that is not a JSON object becomes
// {"plan": plan}; an empty plan leaves input as it was.
func WithPlan(input json.RawMessage, plan string) json.RawMessage {
	if strings.TrimSpace(plan) == "" {
		return input
	}
	o, err := settingsfile.ParseObject(input)
	if err != nil {
		o = nil
	}
	v, err := json.Marshal(plan)
	if err != nil {
		return input // a Go string always marshals: cannot happen
	}
	o.Set("plan", v)
	return o.Marshal()
}

// Answer is the PermissionRequest hook's output for d, exactly as Claude Code reads it
// (docs/hooks.md §PermissionRequest decision control). No decision is an empty output.
func Answer(d Decision) []byte {
	type perm struct {
		Type        string `json:"type"`
		Mode        string `json:"mode"`
		Destination string `json:"destination"`
	}
	type decision struct {
		Behavior           string          `json:"behavior"`
		UpdatedInput       json.RawMessage `json:"updatedInput,omitempty"`
		UpdatedPermissions []perm          `json:"updatedPermissions,omitempty"`
		Message            string          `json:"message,omitempty"`
	}
	var dec decision
	switch d.Behavior {
	case "allow":
		dec = decision{Behavior: "allow", UpdatedInput: d.Input}
		if len(bytes.TrimSpace(dec.UpdatedInput)) == 0 || !json.Valid(dec.UpdatedInput) {
			dec.UpdatedInput = json.RawMessage("{}")
		}
		if d.Mode != "" {
			dec.UpdatedPermissions = []perm{{Type: "setMode", Mode: d.Mode, Destination: "session"}}
		}
	case "deny":
		msg := d.Message
		if strings.TrimSpace(msg) == "" {
			msg = "The plan was rejected in plandash."
		}
		dec = decision{Behavior: "deny", Message: msg}
	default:
		return nil
	}
	out := map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": EventPermissionRequest, "decision": dec}}
	b, err := json.Marshal(out)
	if err != nil {
		return nil // updatedInput was checked above: cannot happen
	}
	return b
}

// CheckAnswer reports whether b is output the hook may print: empty, or a PermissionRequest
// decision of the shape Answer makes. The hook command checks what the server sent, so a
// garbled or foreign answer is never handed to Claude Code.
func CheckAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Out *struct {
			Event    string `json:"hookEventName"`
			Decision *struct {
				Behavior     string          `json:"behavior"`
				UpdatedInput json.RawMessage `json:"updatedInput"`
				Message      string          `json:"message"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	switch {
	case v.Out == nil || v.Out.Decision == nil:
		return errors.New("the answer has no hookSpecificOutput.decision")
	case v.Out.Event != EventPermissionRequest:
		return fmt.Errorf("the answer is for %q, not PermissionRequest", v.Out.Event)
	case v.Out.Decision.Behavior == "allow" && !isObjectJSON(v.Out.Decision.UpdatedInput):
		return errors.New("an allow answer needs updatedInput, or Claude Code ignores it")
	case v.Out.Decision.Behavior == "deny" && v.Out.Decision.Message == "":
		return errors.New("a deny answer needs a message")
	case v.Out.Decision.Behavior != "allow" && v.Out.Decision.Behavior != "deny":
		return fmt.Errorf("the answer's behavior %q is neither allow nor deny", v.Out.Decision.Behavior)
	}
	return nil
}

func isObjectJSON(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// ClosedInTerminal reports whether ev shows that a pending plan prompt of its session was
// answered in the terminal (no hook event says so directly, anthropics/claude-code #79651):
// a PostToolUse of ExitPlanMode means it was approved; a new prompt, the end of the turn or of
// the session, or a new plan prompt mean it was not.
func ClosedInTerminal(ev Event) (closed, approved bool) {
	switch ev.HookEventName {
	case EventPostToolUse:
		return ev.ToolName == ToolExitPlanMode, ev.ToolName == ToolExitPlanMode
	case EventUserPromptSubmit, EventStop, EventSessionEnd:
		return true, false
	case EventPermissionRequest:
		return ev.ToolName == ToolExitPlanMode, false
	}
	return false, false
}

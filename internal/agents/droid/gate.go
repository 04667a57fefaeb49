package droid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// IsGateEvent reports whether ev is the plan approval plandash can answer: PreToolUse of
// ExitSpecMode. Droid runs the hook before its own "approve the spec" dialog; an allow from the
// hook skips the dialog and the spec counts as approved, a deny keeps Droid in spec mode and
// hands the model the reason.
func IsGateEvent(ev Event) bool {
	return ev.HookEventName == EventPreToolUse && ev.ToolName == ToolExitSpecMode
}

// Decision is how ExitSpecMode's PreToolUse hook is answered.
type Decision struct {
	// Allow approves the spec; Plan, when set, replaces the spec's text first (an edit made in
	// plandash). Otherwise the call is denied and Reason reaches the model.
	Allow  bool
	Plan   string
	Reason string
}

// Answer is the hook's output for d, as Droid reads a PreToolUse hook's stdout:
// hookSpecificOutput.permissionDecision "allow" (with updatedInput, which Droid merges into
// the tool's input) or "deny" with permissionDecisionReason.
func Answer(d Decision) []byte {
	out := map[string]any{"hookEventName": EventPreToolUse}
	switch {
	case d.Allow:
		out["permissionDecision"] = "allow"
		out["permissionDecisionReason"] = "Approved in plandash"
		if strings.TrimSpace(d.Plan) != "" {
			out["updatedInput"] = map[string]string{"plan": d.Plan}
		}
	default:
		reason := d.Reason
		if strings.TrimSpace(reason) == "" {
			reason = "The spec was rejected in plandash."
		}
		out["permissionDecision"] = "deny"
		out["permissionDecisionReason"] = reason
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": out})
	return b
}

// Undecided is the hook's output when plandash reached no decision: "ask", so Droid shows its
// own spec dialog and the person at the terminal decides. Nothing is approved unseen.
func Undecided(why string) []byte {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": EventPreToolUse,
		"permissionDecision": "ask", "permissionDecisionReason": why}})
	return b
}

// CheckAnswer reports whether b is output the gate hook may print: a PreToolUse decision of
// the shape Answer or Undecided makes. The hook command checks what the server sent, so a
// garbled or foreign answer is never handed to Droid.
func CheckAnswer(b []byte) error {
	var v struct {
		Out *struct {
			Event    string          `json:"hookEventName"`
			Decision string          `json:"permissionDecision"`
			Reason   string          `json:"permissionDecisionReason"`
			Input    json.RawMessage `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("the answer is empty")
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	switch {
	case v.Out == nil:
		return errors.New("the answer has no hookSpecificOutput")
	case v.Out.Event != EventPreToolUse:
		return fmt.Errorf("the answer is for %q, not PreToolUse", v.Out.Event)
	}
	switch v.Out.Decision {
	case "allow":
		if len(v.Out.Input) > 0 {
			var in struct {
				Plan string `json:"plan"`
			}
			if json.Unmarshal(v.Out.Input, &in) != nil || strings.TrimSpace(in.Plan) == "" {
				return errors.New("the answer's updatedInput is not a plan")
			}
		}
	case "deny", "ask":
		if strings.TrimSpace(v.Out.Reason) == "" {
			return fmt.Errorf("a %s answer needs a reason", v.Out.Decision)
		}
	default:
		return fmt.Errorf("the answer's permissionDecision %q is not allow, deny or ask", v.Out.Decision)
	}
	return nil
}

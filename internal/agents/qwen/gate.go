package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// IsGateEvent reports whether ev is the plan approval plandash can hold: PermissionRequest for
// exit_plan_mode. Qwen Code runs that hook before it shows its own "Would you like to proceed?"
// dialog, and waits for it.
func IsGateEvent(ev Event) bool {
	return ev.HookEventName == EventPermissionRequest && ev.ToolName == ToolExitPlanMode
}

// Decision is how exit_plan_mode's PermissionRequest hook is answered. A zero Decision (Deny
// false) prints nothing: Qwen Code's own dialog then asks in the terminal. Qwen Code 0.24.4
// lets a hook refuse exit_plan_mode but not approve it (an allow is ignored for tools that
// need the person: coreToolScheduler, requiresUserInteraction), so an approval in plandash
// leaves the last word, and the choice of how edits are then approved, to that dialog.
type Decision struct {
	// Deny refuses the call; Qwen Code sends Message to the model as the call's error and stays
	// in plan mode.
	Deny    bool
	Message string
}

// Revise is the decision for a plan the person edited: the model is told to adopt the edited
// plan and call exit_plan_mode again with it.
func Revise(editedPlan, comment string) Decision {
	var b strings.Builder
	b.WriteString("The user edited your plan in plandash. Call exit_plan_mode again with this plan:\n\n")
	b.WriteString(editedPlan)
	if c := strings.TrimSpace(comment); c != "" {
		b.WriteString("\n\nTheir comment: ")
		b.WriteString(c)
	}
	return Decision{Deny: true, Message: b.String()}
}

// Answer is the hook's output for d, exactly as Qwen Code reads a PermissionRequest hook's
// (PermissionRequestHookOutput): nothing to leave it to the dialog,
// {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":…}}}
// to refuse.
func Answer(d Decision) []byte {
	if !d.Deny {
		return nil
	}
	msg := d.Message
	if strings.TrimSpace(msg) == "" {
		msg = "The plan was rejected in plandash."
	}
	return deny(msg)
}

func deny(message string) []byte {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": EventPermissionRequest,
		"decision": map[string]any{"behavior": "deny", "message": message}}})
	return b
}

// denyMessage reads the message of a deny of the shape deny makes; ok is false for anything
// else.
func denyMessage(b []byte) (string, error) {
	var v struct {
		HookSpecificOutput struct {
			HookEventName string `json:"hookEventName"`
			Decision      struct {
				Behavior string `json:"behavior"`
				Message  string `json:"message"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return "", fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	d := v.HookSpecificOutput.Decision
	switch {
	case v.HookSpecificOutput.HookEventName != EventPermissionRequest:
		return "", fmt.Errorf("the answer is for %q, not PermissionRequest", v.HookSpecificOutput.HookEventName)
	case d.Behavior != "deny":
		return "", fmt.Errorf("the answer's behavior %q is not deny", d.Behavior)
	case strings.TrimSpace(d.Message) == "":
		return "", errors.New("a deny answer needs a message")
	}
	return d.Message, nil
}

// CheckAnswer reports whether b is output the hook may print for a plan: empty, or a deny of
// the shape Answer makes. The hook command checks what the server sent, so a garbled or
// foreign answer is never handed to Qwen Code.
func CheckAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	_, err := denyMessage(b)
	return err
}

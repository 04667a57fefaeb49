package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// IsGateEvent reports whether ev is the plan approval plandash can hold: preToolUse for
// exit_plan_mode, unless the hook said it only records plans (EnvNoGate). The hook runs before
// Copilot CLI shows its own "Plan Ready for Review" menu.
func IsGateEvent(ev Event) bool {
	return ev.HookEventName == EventPreToolUse && ev.ToolName == ToolExitPlanMode && !ev.NoGate
}

// Decision is how exit_plan_mode's preToolUse hook is answered. A zero Decision lets the call
// go ahead: Copilot CLI then shows its own menu in the terminal, where the person picks how
// to build (a preToolUse "allow" does not skip that menu; Copilot CLI 1.0.102).
type Decision struct {
	// Deny refuses the call; Copilot CLI hands Reason to the model ("Denied by preToolUse
	// hook: …") and stays in plan mode, without showing its menu.
	Deny   bool
	Reason string
}

// Revise is the decision for a plan the person edited: the model is told to rewrite plan.md
// to the edited text and call exit_plan_mode again.
func Revise(editedPlan, comment string) Decision {
	var b strings.Builder
	b.WriteString("The user edited your plan in plandash. Rewrite plan.md to this, then call exit_plan_mode again:\n\n")
	b.WriteString(editedPlan)
	if c := strings.TrimSpace(comment); c != "" {
		b.WriteString("\n\nTheir comment: ")
		b.WriteString(c)
	}
	return Decision{Deny: true, Reason: b.String()}
}

// Answer is the hook's output for d, as Copilot CLI reads it: nothing to let the call go
// ahead, {"permissionDecision":"deny","permissionDecisionReason":…} to refuse it.
func Answer(d Decision) []byte {
	if !d.Deny {
		return nil
	}
	reason := d.Reason
	if strings.TrimSpace(reason) == "" {
		reason = "The plan was rejected in plandash."
	}
	b, _ := json.Marshal(map[string]string{"permissionDecision": "deny", "permissionDecisionReason": reason})
	return b
}

// CheckAnswer reports whether b is output the hook may print: empty, or a deny of the shape
// Answer makes, so a garbled or foreign answer is never handed to Copilot CLI.
func CheckAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Decision string `json:"permissionDecision"`
		Reason   string `json:"permissionDecisionReason"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	switch {
	case v.Decision != "deny":
		return fmt.Errorf("the answer's permissionDecision %q is not deny", v.Decision)
	case strings.TrimSpace(v.Reason) == "":
		return errors.New("a deny answer needs a reason")
	}
	return nil
}

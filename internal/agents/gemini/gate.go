package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// MaxPlanFile bounds how much of a plan file is read.
const MaxPlanFile = 512 << 10

// IsGateEvent reports whether ev is the plan approval plandash can answer: BeforeTool for
// exit_plan_mode. (The hook runs before Gemini CLI's own dialog; with plandash's policy file
// installed the dialog is skipped, so the hook's answer is the decision.)
func IsGateEvent(ev Event) bool {
	return ev.HookEventName == EventBeforeTool && ev.ToolName == ToolExitPlanMode
}

// ResolvePlanPath finds the file exit_plan_mode's plan_filename names, the way Gemini CLI
// does (resolveAndValidatePlanPath): an absolute path inside the plans directory as it is, a
// path relative to the project that lands inside it, else a path relative to the plans
// directory. It returns "" when the name would leave the plans directory.
func ResolvePlanPath(filename, plansDir, cwd string) string {
	name := strings.TrimSpace(filename)
	if name == "" || plansDir == "" || !filepath.IsAbs(plansDir) {
		return ""
	}
	if filepath.IsAbs(name) && within(plansDir, name) {
		return filepath.Clean(name)
	}
	if cwd != "" && filepath.IsAbs(cwd) {
		if p := filepath.Join(cwd, name); within(plansDir, p) {
			return p
		}
	}
	if p := filepath.Join(plansDir, name); within(plansDir, p) {
		return p
	}
	return ""
}

// within reports whether path lies in dir, lexically (os.Root guards the real read).
func within(dir, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Decision is how exit_plan_mode's BeforeTool hook is answered. A zero Decision (Deny false)
// lets the call go ahead: the hook exits 0 and prints nothing.
type Decision struct {
	// Deny refuses the call; Gemini CLI sends Reason to the model as the tool's error and stays
	// in plan mode.
	Deny   bool
	Reason string
}

// Revise is the decision for a plan the person edited: the model is told to revise its plan
// file to the edited text and call exit_plan_mode again.
func Revise(editedPlan, comment string) Decision {
	var b strings.Builder
	b.WriteString("The user edited your plan in plandash. Rewrite the plan file to this, then call exit_plan_mode again:\n\n")
	b.WriteString(editedPlan)
	if c := strings.TrimSpace(comment); c != "" {
		b.WriteString("\n\nTheir comment: ")
		b.WriteString(c)
	}
	return Decision{Deny: true, Reason: b.String()}
}

// Answer is the hook's output for d, exactly as Gemini CLI reads it (docs/hooks/reference.md):
// nothing for approve, {"decision":"deny","reason":…} for a refusal.
func Answer(d Decision) []byte {
	if !d.Deny {
		return nil
	}
	reason := d.Reason
	if strings.TrimSpace(reason) == "" {
		reason = "The plan was rejected in plandash."
	}
	b, _ := json.Marshal(map[string]string{"decision": "deny", "reason": reason})
	return b
}

// Undecided is the hook's output when plandash reached no decision. Printing nothing would let
// the plan through: with plandash's policy installed, Gemini CLI shows no dialog of its own.
// Nor does "decision":"ask" bring the dialog back: exit_plan_mode asks the policy itself and
// ignores a hook's ask (Gemini CLI 0.61.0). So the hook stops the agent's turn
// ("continue":false): the plan is not approved, Gemini CLI stays in plan mode, and the person
// at the terminal, shown message, decides what happens next.
func Undecided(message string) []byte {
	b, _ := json.Marshal(struct {
		Continue      bool   `json:"continue"`
		StopReason    string `json:"stopReason"`
		SystemMessage string `json:"systemMessage"`
	}{false, message, message})
	return b
}

// CheckAnswer reports whether b is output the hook may print: empty, or a deny of the shape
// Answer makes. The hook command checks what the server sent, so a garbled or foreign answer is
// never handed to Gemini CLI.
func CheckAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	switch {
	case v.Decision != "deny":
		return fmt.Errorf("the answer's decision %q is not deny", v.Decision)
	case strings.TrimSpace(v.Reason) == "":
		return errors.New("a deny answer needs a reason")
	}
	return nil
}

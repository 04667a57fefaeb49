package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
)

// PromptDecides is what a held permission request says at its deadline: Copilot CLI's own
// permission prompt asks then.
const PromptDecides = "Copilot CLI's permission prompt decides"

// IsPermissionEvent reports whether ev is a permission request plandash holds: Copilot CLI
// runs the permissionRequest hook before it would prompt (a shell command, a file write, a
// URL…), and takes {"behavior":"allow"} or {"behavior":"deny","message":…} from it instead of
// prompting; no answer lets the prompt ask (verified with 1.0.102). An install without --gate
// holds nothing (EnvNoGate).
func IsPermissionEvent(ev Event) bool {
	return ev.HookEventName == EventPermissionRequest && !ev.NoGate
}

// PermissionAnswer is the permissionRequest hook's output for a decided request.
func PermissionAnswer(approved bool, reason string) []byte {
	if approved {
		return []byte(`{"behavior":"allow"}`)
	}
	if strings.TrimSpace(reason) == "" {
		reason = "The user refused this in plandash."
	}
	b, _ := json.Marshal(map[string]string{"behavior": "deny", "message": reason})
	return b
}

// CheckPermissionAnswer reports whether b is output the hook may print for a held request:
// empty (the prompt asks), an allow, or a deny with a message.
func CheckPermissionAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Behavior string `json:"behavior"`
		Message  string `json:"message"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	if v.Behavior == "allow" || (v.Behavior == "deny" && strings.TrimSpace(v.Message) != "") {
		return nil
	}
	return errors.New("the answer is neither an allow nor a deny with a message")
}

// holdPermission submits the request to the gate and waits for the person. Nothing (Copilot's
// prompt asks) when nobody decided by the deadline or the hook gave up.
func (s *Service) holdPermission(ctx context.Context, ev Event) ([]byte, error) {
	input := bounded(ev.ToolArgs, 16<<10)
	var pretty bytes.Buffer
	if json.Indent(&pretty, input, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(input)
	}
	what := ev.ToolName
	if cmd := argString(ev.ToolArgs, "command"); cmd != "" {
		what += ": " + cmd
	} else if p := argString(ev.ToolArgs, "path"); p != "" {
		what += " " + p
	}
	md := fmt.Sprintf("Copilot CLI asks permission for **%s**:\n\n```json\n%s\n```\n", hookkit.Truncate(ev.ToolName, 64),
		strings.ReplaceAll(pretty.String(), "```", "'''"))
	text := fmt.Sprintf("Copilot CLI waits in `%s` (session `%s`) before this call.\n\n"+
		"- **Approve** allows it once, without Copilot's own prompt.\n- **Reject** refuses it; your comment is sent to the agent.\n\n"+
		"If nobody decides before the deadline, Copilot's own prompt asks in the terminal.",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(ev.SessionID, 256))
	hold := agentkit.Holding{Log: s.cfg.Log, Hook: "copilot hook", Agent: AgentTitle, Stopped: "the hook stopped waiting; " + PromptDecides}
	r, err := hold.Hold(ctx, s.gate, approval.Submission{SessionID: SessionKey(ev.SessionID), Agent: AgentTitle,
		Title: hookkit.Truncate("Permission: "+hookkit.Truncate(what, 200), approval.MaxTitle-10), Context: text,
		Plan:    approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md},
		Options: []approval.Action{approval.Approve, approval.Reject}, Timeout: approval.Duration(s.cfg.PermissionDeadline),
		Default: approval.Reject, Then: PromptDecides})
	if err != nil {
		return nil, err
	}
	d := r.Decision
	if d == nil || d.Expired {
		return nil, nil
	}
	return PermissionAnswer(r.Status == approval.Approved, d.Reason()), nil
}

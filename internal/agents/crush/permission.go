package crush

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
)

// Gate is what the Service uses of approval.Gate.
type Gate interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
}

// PermissionTools are the tools whose calls Crush asks permission for in the terminal (its
// internal/agent/tools call the permission service: bash, edit, multiedit, write, download,
// fetch; view and ls only for paths outside the project, which are not held). With
// `install --gate` their PreToolUse hook holds each call at plandash's gate first.
var PermissionTools = []string{"bash", "edit", "multiedit", "write", "download", "fetch"}

// PermissionMatcher is the hook matcher of PermissionTools.
var PermissionMatcher = "^(" + strings.Join(PermissionTools, "|") + ")$"

// PromptDecides is what a held call's request says at its deadline: Crush's own permission
// prompt asks then.
const PromptDecides = "Crush's permission prompt decides"

// IsPermissionEvent reports whether ev is a call Crush would ask permission for. Its PreToolUse
// hook runs before the prompt: "allow" skips the prompt, "deny" blocks the call with a reason the
// model sees, and no opinion lets the prompt ask.
func IsPermissionEvent(ev Event) bool {
	return strings.EqualFold(ev.Event, EventPreToolUse) && slices.Contains(PermissionTools, ev.ToolName)
}

// PermissionAnswer is the hook's output for a decided request: {"decision":"allow"} for an
// approval, {"decision":"deny","reason":…} for a rejection (with the person's comment).
func PermissionAnswer(approved bool, reason string) []byte {
	if approved {
		return []byte(`{"decision":"allow"}`)
	}
	if strings.TrimSpace(reason) == "" {
		reason = "The user refused this call in plandash."
	}
	b, _ := json.Marshal(map[string]string{"decision": "deny", "reason": reason})
	return b
}

// CheckPermissionAnswer reports whether b is output the hook may print for a held call: empty
// (Crush's prompt asks), an allow, or a deny with a reason.
func CheckPermissionAnswer(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	switch {
	case v.Decision == "allow":
		return nil
	case v.Decision == "deny" && strings.TrimSpace(v.Reason) != "":
		return nil
	}
	return errors.New("the answer is neither an allow nor a deny with a reason")
}

// holdPermission submits the call to the gate and waits for the person. Nothing (Crush's prompt
// asks) when nobody decided by the deadline or the hook gave up.
func (s *Service) holdPermission(ctx context.Context, ev Event) ([]byte, error) {
	input := bounded(ev.ToolInput, 16<<10)
	var pretty bytes.Buffer
	if json.Indent(&pretty, input, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(input)
	}
	what := ev.ToolName
	if cmd := inputString(ev.ToolInput, "command"); cmd != "" {
		what += ": " + cmd
	} else if p := inputString(ev.ToolInput, "file_path"); p != "" {
		what += " " + p
	}
	md := fmt.Sprintf("Crush asks to run **%s**:\n\n```json\n%s\n```\n", hookkit.Truncate(ev.ToolName, 64),
		strings.ReplaceAll(pretty.String(), "```", "'''"))
	text := fmt.Sprintf("Crush waits in `%s` (session `%s`) before this call.\n\n"+
		"- **Approve** runs it without Crush's own prompt.\n- **Reject** blocks it; your comment is sent to the agent.\n\n"+
		"If nobody decides before the deadline, Crush's own prompt asks in the terminal.",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(ev.SessionID, 256))
	hold := agentkit.Holding{Log: s.cfg.Log, Hook: "crush hook", Agent: AgentTitle, Stopped: "the hook stopped waiting; " + PromptDecides}
	r, err := hold.Hold(ctx, s.gate, approval.Submission{SessionID: SessionKey(ev.SessionID), Agent: AgentTitle,
		Title: hookkit.Truncate("Permission: "+what, approval.MaxTitle-10), Context: text,
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

func inputString(input json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[key], &s)
	return hookkit.Truncate(s, 200)
}

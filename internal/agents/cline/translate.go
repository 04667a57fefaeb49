package cline

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on what one event puts into the session.
const (
	maxText  = 16 << 10  // a prompt or a turn's answer in the activity
	maxPlan  = 256 << 10 // a plan-mode turn's plan
	maxTitle = 200       // a tool call's title
)

// State is what translating an event needs besides the event itself.
type State struct {
	// Announce names the session (agent, cwd, host, Cline's ids). Set it the first time
	// plandash sees a session; TaskStart always announces.
	Announce bool
	// Host is the machine's name, when the hook did not say.
	Host string
	// PlanState is the state switch_to_act_mode's plan is shown in ("proposed", "approved", …);
	// empty for other events.
	PlanState string
	// Plan is the plan switch_to_act_mode asks to implement: the session's last plan-mode
	// answer, as plandash kept it.
	Plan string
	// SkipPlan leaves a plan-mode turn's plan out: plandash already has it.
	SkipPlan bool
}

// Translate turns one hook event into ACP JSON-RPC messages (the NDJSON lines POST
// /api/v1/ingest takes) that plans.Service.Apply applies unchanged, in one batch on a fresh
// stream.
func Translate(ev Event, st State) []json.RawMessage {
	b := &batch{agentkit.Batch{SID: SessionKey(ev.SessionID()), IDPrefix: "cline-"}}
	b.Initialize("plandash-hook", map[string]any{"name": AgentName, "title": AgentTitle, "version": hookkit.Truncate(ev.ClineVersion, 64)})
	host := st.Host
	if ev.Host != "" {
		host = ev.Host
	}
	if st.Announce || ev.HookName == HookTaskStart {
		meta := map[string]any{"host": hookkit.Truncate(host, 256), "agentSessionId": hookkit.Truncate(ev.SessionID(), 256), "via": plans.ViaHooks}
		b.NewSession(hookkit.Truncate(ev.Cwd(), 4096), meta)
	}
	switch ev.HookName {
	case HookTaskStart:
		b.message("Task started")
	case HookTaskResume:
		b.message("Task resumed")
	case HookTaskCancel:
		b.message("Task cancelled")
	case HookTaskError:
		text := "Task failed"
		if ev.Error != nil && ev.Error.Message != "" {
			text += ": " + hookkit.Truncate(ev.Error.Message, 2048)
		}
		b.message(text)
	case HookShutdown:
		b.Request("session/close", map[string]any{"sessionId": b.SID}, nil)
	case HookPromptSubmit:
		if ev.UserPromptSubmit != nil {
			b.Request("session/prompt", map[string]any{"sessionId": b.SID,
				"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(ev.UserPromptSubmit.Prompt, maxText)}}}, nil)
		}
	case HookTaskComplete:
		text := ""
		if ev.Turn != nil {
			text = ev.Turn.OutputText
		}
		if ev.Mode == "plan" && !st.SkipPlan && strings.TrimSpace(text) != "" {
			b.plan(hookkit.Truncate(text, maxPlan), "presented")
		}
		if strings.TrimSpace(text) == "" {
			text = "Turn ended"
		}
		b.message(hookkit.Truncate(text, maxText))
	case HookPreToolUse:
		if IsGateEvent(ev) && st.PlanState != "" {
			plan := st.Plan
			if strings.TrimSpace(plan) == "" {
				plan = "_Cline asks to switch to act mode; plandash saw no plan-mode answer before it._"
			}
			b.plan(plan, st.PlanState)
		}
	case HookPostToolUse:
		if r := ev.ToolResult; r != nil {
			status := "completed"
			if r.Error != "" {
				status = "failed"
			}
			b.Update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": hookkit.Truncate(r.ID, 256), "title": toolTitle(r.Name, r.Input),
				"kind": toolKind(r.Name), "status": status})
		}
	}
	return b.Out
}

// toolTitle is a call's one-line title: the tool and the start of its input.
func toolTitle(name string, input json.RawMessage) string {
	in := string(bytes.Join(bytes.Fields(input), []byte(" ")))
	if in == "" || in == "{}" || in == "null" {
		return hookkit.Truncate(name, maxTitle)
	}
	return hookkit.Truncate(name+" "+in, maxTitle)
}

// toolKind maps Cline's tools onto ACP's tool kinds.
func toolKind(name string) string {
	switch name {
	case "read_files":
		return "read"
	case "editor", "apply_patch":
		return "edit"
	case "search_codebase":
		return "search"
	case "run_commands":
		return "execute"
	case "fetch_web_content", "web_search":
		return "fetch"
	case ToolSwitchToAct:
		return "switch_mode"
	}
	return "other"
}

// batch is the kit's Batch, with what cline adds to it.
type batch struct{ agentkit.Batch }

func (b *batch) plan(md, state string) {
	b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanMode, "content": md,
		"_meta": map[string]any{"plandash": map[string]any{"state": state}}}})
}

// message adds an agent message with an id of its own: activity merges chunks that share an id,
// and two turns must stay apart.
func (b *batch) message(text string) {
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "cline-" + rand.Text()[:12],
		"content": map[string]any{"type": "text", "text": text}})
}

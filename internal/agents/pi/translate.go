package pi

import (
	"crypto/rand"
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on what one event puts into the session.
const (
	maxText    = 16 << 10 // a prompt or the turn's answer in the activity
	maxPlan    = 256 << 10
	maxTodos   = 200
	maxTodoLen = 4 << 10
)

// Translate turns one event into ACP JSON-RPC messages (the NDJSON lines POST /api/v1/ingest
// takes) that plans.Service.Apply applies unchanged, in one batch on a fresh stream. announce
// names the session (agent, cwd, host, Pi's own id and session file): set it the first time
// plandash sees a session; session_start always announces. planState is the state a plan
// event's plan is shown in ("proposed", "approved", …).
func Translate(ev Event, announce bool, host, planState string) []json.RawMessage {
	b := &batch{agentkit.Batch{SID: SessionKey(ev.SessionID), IDPrefix: "pi-"}}
	b.Initialize("plandash-pi", map[string]any{"name": AgentName, "title": AgentTitle})
	if ev.Host != "" {
		host = ev.Host
	}
	if announce || ev.Type == EventSessionStart {
		meta := map[string]any{"host": hookkit.Truncate(host, 256), "agentSessionId": ev.SessionID, "via": plans.ViaHooks}
		if ev.SessionFile != "" {
			meta["transcriptPath"] = hookkit.Truncate(ev.SessionFile, 4096)
		}
		b.NewSession(hookkit.Truncate(ev.Cwd, 4096), meta)
	}
	switch ev.Type {
	case EventSessionStart:
		text := "Session started"
		if ev.Reason != "" {
			text += " (" + hookkit.Truncate(ev.Reason, 64) + ")"
		}
		b.message(text)
	case EventSessionShutdown:
		b.Request("session/close", map[string]any{"sessionId": b.SID}, nil)
	case EventPrompt:
		b.Request("session/prompt", map[string]any{"sessionId": b.SID,
			"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(ev.Prompt, maxText)}}}, nil)
	case EventAgentEnd:
		text := hookkit.Truncate(ev.Text, maxText)
		if strings.TrimSpace(text) == "" {
			text = "Turn ended"
		}
		b.message(text)
	case EventTodos:
		b.todos(ev.Todos)
	case EventPlan:
		b.markdownPlan(ev.Plan, planState)
	}
	return b.Out
}

// todos sets the session's todo list (removed when empty).
func (b *batch) todos(todos []Todo) {
	if len(todos) == 0 {
		b.Update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
		return
	}
	b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos, "entries": TodoEntries(todos)}})
}

// markdownPlan sets the session's submitted plan, in state.
func (b *batch) markdownPlan(plan, state string) {
	md := hookkit.Truncate(plan, maxPlan)
	if strings.TrimSpace(md) == "" {
		md = "_Pi submitted an empty plan._"
	}
	b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanMode, "content": md,
		"_meta": map[string]any{"plandash": map[string]any{"state": state}}}})
}

// TodoEntries maps todo_write entries onto ACP plan entries, bounded. A status Pi's model made
// up becomes a "_"-prefixed custom value, which ACP allows.
func TodoEntries(todos []Todo) []plans.Entry {
	out := make([]plans.Entry, 0, min(len(todos), maxTodos))
	for _, t := range todos[:min(len(todos), maxTodos)] {
		out = append(out, plans.Entry{Content: hookkit.Truncate(t.Content, maxTodoLen), Priority: "medium", Status: wireStatus(t.Status)})
	}
	return out
}

func wireStatus(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "todo", plans.StatusPending:
		return plans.StatusPending
	case "in-progress", "active":
		return plans.StatusInProgress
	case "done", "complete":
		return plans.StatusCompleted
	case plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled:
		return s
	}
	return "_" + hookkit.Truncate(strings.TrimPrefix(s, "_"), 64)
}

// batch is agentkit.Batch, with the messages only Pi's events make.
type batch struct{ agentkit.Batch }

// message adds an agent message with an id of its own: activity merges chunks that share an id,
// and two turns must stay apart.
func (b *batch) message(text string) {
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "pi-" + rand.Text()[:12],
		"content": map[string]any{"type": "text", "text": text}})
}

package claude

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on what one event puts into the session's activity and tool calls.
const (
	maxPromptText = 16 << 10 // a prompt or the last assistant message
	maxToolJSON   = 16 << 10 // a tool's input or output
	maxRawEvent   = 32 << 10 // an event kept raw
)

// State is what translating an event needs besides the event itself.
type State struct {
	// Tasks is the session's current tasks plan (TasksFromEntries of the stored entries); task
	// events are incremental, so the new whole plan is built from it.
	Tasks []Task
	// Announce names the session: agent, cwd, host and Claude's own id. Set it on the first
	// event plandash sees of a session; SessionStart always announces.
	Announce bool
	// Host is this machine's name, recorded with the session.
	Host string
}

// ErrNoSession is returned for a payload without a session id: its updates cannot be placed.
var ErrNoSession = errors.New("claude hook payload: session_id is missing")

// Translate turns one hook event into ACP JSON-RPC messages (the NDJSON lines POST
// /api/v1/ingest takes) that plans.Service.Apply applies unchanged, in one batch on a fresh
// stream. Every batch starts with an initialize exchange naming Claude Code, so the session
// shows the agent even when plandash missed SessionStart. Events plandash does not know are
// kept raw in the session's activity.
func Translate(ev Event, st State) ([]json.RawMessage, error) {
	if ev.SessionID == "" {
		return nil, ErrNoSession
	}
	b := &batch{sid: SessionKey(ev.SessionID)}
	b.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}},
		"clientInfo": map[string]any{"name": "plandash-hook"}},
		map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": AgentName, "title": AgentTitle}})
	if st.Announce || ev.HookEventName == EventSessionStart {
		meta := map[string]any{"host": st.Host, "agentSessionId": ev.SessionID, "via": plans.ViaHooks}
		if ev.TranscriptPath != "" {
			meta["transcriptPath"] = ev.TranscriptPath
		}
		b.request("session/new", map[string]any{"cwd": ev.Cwd, "mcpServers": []any{}, "_meta": map[string]any{"plandash": meta}},
			map[string]any{"sessionId": b.sid})
	}
	switch ev.HookEventName {
	case EventSessionStart:
		text := "Session started"
		if ev.Source != "" {
			text += " (" + ev.Source + ")"
		}
		b.update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": b.messageID(ev),
			"content": map[string]any{"type": "text", "text": text}})
	case EventSessionEnd:
		b.request("session/close", map[string]any{"sessionId": b.sid}, nil)
	case EventUserPromptSubmit:
		b.request("session/prompt", map[string]any{"sessionId": b.sid,
			"prompt": []any{map[string]any{"type": "text", "text": hookkit.Truncate(ev.Prompt, maxPromptText)}}}, nil)
	case EventStop, EventSubagentStop:
		text := hookkit.Truncate(ev.LastAssistantMessage, maxPromptText)
		if text == "" {
			text = "Turn ended"
		}
		b.update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": b.messageID(ev),
			"content": map[string]any{"type": "text", "text": text}})
	case EventNotification:
		b.update(map[string]any{"sessionUpdate": "notice", "severity": "info", "title": hookkit.Truncate(ev.Message, maxPromptText),
			"description": ev.NotificationType, "_meta": map[string]any{"claudeCode": map[string]any{"notificationType": ev.NotificationType, "title": ev.Title}}})
	case EventTaskCreated:
		b.tasks(applyTaskChange(st.Tasks, TaskChange{ID: ev.TaskID, Subject: opt(ev.TaskSubject), Description: opt(ev.TaskDescription)}))
	case EventTaskCompleted:
		done := "completed"
		b.tasks(applyTaskChange(st.Tasks, TaskChange{ID: ev.TaskID, Subject: opt(ev.TaskSubject), Description: opt(ev.TaskDescription), Status: &done}))
	case EventPreToolUse, EventPostToolUse, EventPostToolUseFailure, EventPermissionRequest:
		if !b.planTool(ev, st) {
			b.toolCall(ev)
		}
	default:
		b.raw(ev)
	}
	return b.out, nil
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// batch builds the messages of one event.
type batch struct {
	sid string
	n   int
	out []json.RawMessage
}

func (b *batch) add(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		return // only plain maps and strings go in: this cannot fail
	}
	b.out = append(b.out, line)
}

// request adds a request and, when result is not nil, its response. Ids only need to be unique
// within the batch: the service applies each batch on a stream of its own.
func (b *batch) request(method string, params, result any) {
	b.n++
	id := "claude-" + strconv.Itoa(b.n)
	b.add(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if result != nil {
		b.add(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
}

func (b *batch) update(u map[string]any) {
	b.add(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": b.sid, "update": u}})
}

// messageID keeps two turns' messages apart: activity merges chunks that share an id.
func (b *batch) messageID(ev Event) string {
	h := sha256.Sum256(ev.Raw)
	return "claude-" + ev.HookEventName + "-" + hex.EncodeToString(h[:6])
}

// planTool handles the tools that carry plans and reports whether ev was one of them.
func (b *batch) planTool(ev Event, st State) bool {
	switch ev.ToolName {
	case ToolTodoWrite:
		if ev.HookEventName == EventPermissionRequest || ev.HookEventName == EventPostToolUseFailure {
			return true
		}
		todos, ok := Todos(ev.ToolInput)
		switch {
		case !ok:
			b.raw(ev)
		case len(todos) == 0:
			b.update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
		default:
			b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos, "entries": todoEntries(todos)}})
		}
	case ToolTaskCreate, ToolTaskUpdate:
		// Only after the tool ran is the change real, and only then does a create have its id.
		if ev.HookEventName != EventPostToolUse {
			return true
		}
		c := ParseTaskChange(ev.ToolInput, ev.ToolResponse)
		if c.ID == "" {
			b.raw(ev)
			return true
		}
		b.tasks(applyTaskChange(st.Tasks, c))
	case ToolExitPlanMode:
		if ev.HookEventName == EventPostToolUseFailure {
			return true
		}
		p := ExitPlan(ev.ToolInput, ev.ToolResponse)
		state := "proposed"
		if ev.HookEventName == EventPostToolUse {
			state = "approved"
		}
		meta := map[string]any{"plandash": map[string]any{"planFilePath": p.FilePath, "state": state}}
		switch {
		case p.Markdown != "":
			b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanMode, "content": p.Markdown, "_meta": meta}})
		case p.FilePath != "":
			b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "file", "planId": PlanMode, "uri": "file://" + p.FilePath, "_meta": meta}})
		default:
			b.raw(ev)
		}
	default:
		return false
	}
	return true
}

// tasks publishes the whole tasks plan, ordered by id; an empty list retires it.
func (b *batch) tasks(tasks []Task) {
	if len(tasks) == 0 {
		b.update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTasks})
		return
	}
	sortTasks(tasks)
	b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTasks, "entries": taskEntries(tasks)}})
}

// raw keeps an event plandash does not interpret, bounded, as an extension update.
func (b *batch) raw(ev Event) {
	b.update(map[string]any{"sessionUpdate": "_claude_hook", "hookEventName": ev.HookEventName, "toolName": ev.ToolName,
		"event": bounded(ev.Raw, maxRawEvent)})
}

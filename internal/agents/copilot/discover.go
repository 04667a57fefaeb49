package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/follow"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/plans"
)

// EventsStateFile is the name of the discoverer's state file in its state directory.
const EventsStateFile = "copilot-sessions.json"

// Bounds on reading Copilot CLI's session logs (~/.copilot/session-state/<id>/events.jsonl).
const (
	// MaxEventsLine bounds one line: a longer one is skipped and reported, never buffered.
	MaxEventsLine = 8 << 20
	// maxCalls bounds the plan tool calls a parser remembers between their start and end.
	maxCalls = 1024
)

// LogLine is what plandash keeps of one line of a session's events.jsonl: the session's start,
// a prompt, the model's text, a plan tool's start or end, token usage, the session's end.
// Tool results, file contents and the system prompt are never kept.
type LogLine struct {
	Type      string
	At        time.Time
	SessionID string // session.start
	Cwd       string // session.start
	Model     string // session.start, session.usage_record
	Text      string // user.message, assistant.message
	MessageID string
	CallID    string // tool.execution_start, tool.execution_complete
	Tool      string // tool.execution_start
	PlanCall  bool   // tool.execution_start of an sql call on the todos, or of exit_plan_mode
	Success   bool   // tool.execution_complete
	Input     int64  // session.usage_record
	Output    int64
}

// DecodeLogLine reads one events.jsonl line. Lines of other types decode to their type only.
func DecodeLogLine(b []byte) (LogLine, error) {
	var v struct {
		Type      string    `json:"type"`
		Timestamp time.Time `json:"timestamp"`
		Data      struct {
			SessionID string `json:"sessionId"`
			Selected  string `json:"selectedModel"`
			Context   struct {
				Cwd string `json:"cwd"`
			} `json:"context"`
			Content    string          `json:"content"`
			MessageID  string          `json:"messageId"`
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Arguments  json.RawMessage `json:"arguments"`
			Success    bool            `json:"success"`
			Usage      struct {
				Model  string `json:"model"`
				Input  int64  `json:"inputTokens"`
				Output int64  `json:"outputTokens"`
			} `json:"usage"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return LogLine{}, fmt.Errorf("not a session event: %w", err)
	}
	d := v.Data
	l := LogLine{Type: v.Type, At: v.Timestamp}
	switch v.Type {
	case "session.start":
		l.SessionID, l.Cwd, l.Model = d.SessionID, d.Context.Cwd, d.Selected
	case "user.message", "assistant.message":
		l.Text, l.MessageID = hookkit.Truncate(d.Content, maxPromptText), d.MessageID
	case "tool.execution_start":
		l.CallID, l.Tool = d.ToolCallID, d.ToolName
		l.PlanCall = d.ToolName == ToolExitPlanMode || (d.ToolName == ToolSQL && TouchesTodos(d.Arguments))
	case "tool.execution_complete":
		l.CallID, l.Success = d.ToolCallID, d.Success
	case "session.usage_record":
		l.Model, l.Input, l.Output = d.Usage.Model, d.Usage.Input, d.Usage.Output
	}
	return l, nil
}

// logState is what a session log's earlier lines taught its parser.
type logState struct {
	sid, cwd  string
	announced bool
	calls     map[string]string // plan tool calls started and not yet ended: id → tool
	usage     plans.Usage
	used      int64 // the last model call's tokens: how full the context is, roughly
}

func (st logState) clone() logState {
	st.calls = maps.Clone(st.calls)
	return st
}

// logParser turns one session log's lines into the session's todos, plan, activity and usage.
type logParser struct {
	svc   *Service
	path  string
	st    logState
	lines []LogLine
}

func (p *logParser) Line(b []byte, _ int) error {
	l, err := DecodeLogLine(b)
	if err != nil {
		return err
	}
	if l.Type == "session.start" && p.st.sid == "" {
		p.st.sid, p.st.cwd = l.SessionID, l.Cwd
	}
	p.lines = append(p.lines, l)
	return nil
}

func (p *logParser) Flush(ctx context.Context) error {
	ready := len(p.lines) > 0 && p.st.sid != ""
	return follow.FlushLines(&p.lines, &p.st, logState.clone, ready, func(st *logState, lines []LogLine) error {
		return p.svc.applyLog(ctx, p.path, st, lines)
	})
}

func (p *logParser) Saved() follow.Saved { return follow.Saved{Thread: p.st.sid, Cwd: p.st.cwd} }

// applyLog translates lines of one session log and applies them. When hooks report the session
// too, they show its prompts and turns; the log then adds its todos, plan and usage.
func (s *Service) applyLog(ctx context.Context, path string, st *logState, lines []LogLine) error {
	key := SessionKey(st.sid)
	hooked := agentkit.Hooked(ctx, &s.seen, s.plans, key)
	ctx = agentkit.AtLatest(ctx, lines, func(l LogLine) time.Time { return l.At })
	b := &batch{agentkit.Batch{SID: key, IDPrefix: "copilot-"}}
	b.Initialize("plandash-transcript", map[string]any{"name": AgentName, "title": AgentTitle})
	if !st.announced {
		b.NewSession(st.cwd, map[string]any{
			"host": s.cfg.Host, "agentSessionId": st.sid, "via": plans.ViaTranscript, "transcriptPath": path})
	}
	dir := filepath.Dir(path)
	usageChanged := false
	for _, l := range lines {
		switch l.Type {
		case "user.message":
			if !hooked && l.Text != "" {
				b.Request("session/prompt", map[string]any{"sessionId": key, "prompt": []any{map[string]any{"type": "text", "text": l.Text}}}, nil)
			}
		case "assistant.message":
			if !hooked && l.Text != "" {
				b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "copilot-log-" + l.MessageID,
					"content": map[string]any{"type": "text", "text": l.Text}})
			}
		case "tool.execution_start":
			if l.PlanCall && l.CallID != "" {
				if st.calls == nil || len(st.calls) >= maxCalls {
					st.calls = map[string]string{}
				}
				st.calls[l.CallID] = l.Tool
			}
		case "tool.execution_complete":
			tool, ok := st.calls[l.CallID]
			if !ok {
				continue
			}
			delete(st.calls, l.CallID)
			s.logPlanTool(ctx, b, dir, tool, l.Success)
		case "session.usage_record":
			st.usage.InputTokens += l.Input
			st.usage.OutputTokens += l.Output
			st.used = l.Input + l.Output
			if l.Model != "" {
				st.usage.Model = l.Model
			}
			usageChanged = true
		case "session.shutdown":
			if !hooked {
				b.Request("session/close", map[string]any{"sessionId": key}, nil)
			}
		}
	}
	if usageChanged {
		u := st.usage
		// The log records no context window's size: Size stays unreported, not guessed.
		b.Update(map[string]any{"sessionUpdate": "usage_update", "used": st.used, "size": 0,
			"_meta": map[string]any{"plandash": map[string]any{"model": u.Model, "inputTokens": u.InputTokens, "outputTokens": u.OutputTokens}}})
	}
	res, err := agentkit.Apply(ctx, s.plans, "copilot", b.Out)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		s.cfg.Log.Warn("copilot session log: update not applied", "session", key, "file", path, "line", e.Line, "err", e.Message)
	}
	st.announced = true
	return nil
}

// logPlanTool shows what a plan tool call left in the session's folder once it ended: the todos
// table after an sql call on it, plan.md after exit_plan_mode. Both are read as they are now,
// so a log read late shows the latest list, never an older one.
func (s *Service) logPlanTool(ctx context.Context, b *batch, dir, tool string, success bool) {
	switch tool {
	case ToolSQL:
		if !success {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		l, err := ReadTodos(rctx, filepath.Join(dir, "session.db"))
		cancel()
		if err != nil {
			s.cfg.Log.Warn("copilot session log: read the todo list", "dir", dir, "err", err)
			return
		}
		b.planTool(Event{HookEventName: EventPostToolUse, ToolName: ToolSQL, Todos: &l})
	case ToolExitPlanMode:
		path := filepath.Join(dir, "plan.md")
		md, err := (files.PlanDirs{dir}).Read(path, MaxPlanFile)
		if err != nil {
			s.cfg.Log.Warn("copilot session log: read plan.md", "dir", dir, "err", err)
			return
		}
		result := "denied"
		if success {
			result = "success"
		}
		b.planTool(Event{HookEventName: EventPostToolUse, ToolName: ToolExitPlanMode, Plan: string(md), PlanPath: path, ResultType: result})
	}
}

// DiscoverOptions tunes a Discoverer (follow.DiscoverOptions).
type DiscoverOptions = follow.DiscoverOptions

// Discoverer follows Copilot CLI's session logs (~/.copilot/session-state/<id>/events.jsonl)
// read-only and shows their sessions through the Service, without any hook installed: todo
// lists and plan-mode plans (read from the session's folder when their tool calls end), prompts,
// answers and token usage.
type Discoverer = follow.Follower

// NewDiscoverer makes a Discoverer of Copilot CLI's session-state directory dir
// ($COPILOT_HOME/session-state, ~/.copilot/session-state).
func (s *Service) NewDiscoverer(dir string, opts DiscoverOptions) *Discoverer {
	src := follow.Source{Name: "copilot sessions", StateFile: EventsStateFile, Match: isSessionLog, MaxDepth: 1, MaxLineBytes: MaxEventsLine,
		New: func(path string, saved follow.Saved) follow.Parser {
			return &logParser{svc: s, path: path, st: logState{sid: saved.Thread, cwd: saved.Cwd}}
		}}
	return follow.Discover(dir, src, opts)
}

// isSessionLog reports whether rel (under session-state) is a session's log: <id>/events.jsonl.
func isSessionLog(rel string) bool {
	parts := strings.Split(rel, string(filepath.Separator))
	return len(parts) == 2 && parts[1] == "events.jsonl" && !strings.HasPrefix(parts[0], ".")
}

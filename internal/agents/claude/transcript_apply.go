package claude

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// Bounds on the plan-tool calls a transcript parser remembers until their results. A result
// usually follows on the next lines, so only a transcript that never answers fills them; a
// parser then holds at most maxPendingBytes of call inputs, so the Discoverer's MaxFiles
// transcripts hold at most MaxFiles × maxPendingBytes (1 GiB at the default 4096, in the worst
// case of every file crafted to; a real session holds a few kilobytes).
const (
	maxPendingTools = 64
	maxPendingBytes = 256 << 10
)

// transcriptState is what a transcript's earlier lines taught its parser: restored whole when
// an apply fails, so the same lines read again translate the same way.
type transcriptState struct {
	sid, cwd  string
	announced bool
	pending   map[string]TranscriptTool // plan-tool calls awaiting their results, by id
	pendingN  int                       // the bytes of their inputs
	lastKey   string                    // the model response whose usage was counted last
	usage     plans.Usage
	usageSeen bool
}

func (st transcriptState) clone() transcriptState {
	st.pending = maps.Clone(st.pending)
	return st
}

// transcriptParser turns one transcript's lines into the session's plans, activity and usage.
type transcriptParser struct {
	svc   *Service
	path  string
	st    transcriptState
	lines []TranscriptLine
}

func (s *Service) newTranscriptParser(path, sid, cwd string) *transcriptParser {
	if sid == "" {
		sid = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	return &transcriptParser{svc: s, path: path, st: transcriptState{sid: sid, cwd: cwd, pending: map[string]TranscriptTool{}}}
}

// Line decodes one line and keeps it for Flush when it has something to show.
func (p *transcriptParser) Line(b []byte, number int) error {
	l, err := DecodeTranscriptLine(b, number)
	if err != nil {
		return err
	}
	if (l.Type == "user" || l.Type == "assistant") && !l.Sidechain {
		p.lines = append(p.lines, l)
	}
	return nil
}

// Flush applies the lines kept since the last Flush, one batch per session they name.
func (p *transcriptParser) Flush(ctx context.Context) error {
	lines := p.lines
	p.lines = p.lines[:0]
	saved := p.st.clone()
	for len(lines) > 0 {
		n := 1
		sid := lineSession(lines[0], p.st.sid)
		for n < len(lines) && lineSession(lines[n], sid) == sid {
			n++
		}
		if sid != p.st.sid {
			// A resumed or forked session continues in this file under another id.
			p.st.sid, p.st.announced, p.st.lastKey, p.st.usage, p.st.usageSeen = sid, false, "", plans.Usage{}, false
		}
		if err := p.svc.applyTranscript(ctx, p.path, &p.st, lines[:n]); err != nil {
			p.st = saved
			return err
		}
		lines = lines[n:]
	}
	return nil
}

func lineSession(l TranscriptLine, current string) string {
	if l.SessionID != "" {
		return l.SessionID
	}
	return current
}

// Saved keeps the session id and cwd for a restart in the middle of the file.
func (p *transcriptParser) Saved() (sid, cwd string) { return p.st.sid, p.st.cwd }

// applyTranscript translates lines of one session and applies them. Under the Service's lock,
// like a hook event, so a session seen both ways changes one way at a time. When hooks report
// the session too, they show its prompts, messages and tool calls (sooner, and richer): the
// transcript then adds only what hooks cannot give, the plans Claude's tools keep and the
// session's usage, which are whole states and land the same however often they are applied.
func (s *Service) applyTranscript(ctx context.Context, path string, st *transcriptState, lines []TranscriptLine) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := SessionKey(st.sid)
	d, err := s.plans.Session(ctx, key)
	if err != nil && errs.KindOf(err) != errs.NotFound {
		return err
	}
	hooked := slices.Contains(d.Session.Via, plans.ViaHooks) || s.seen[key]
	var tasks []Task
	for _, p := range d.Plans {
		if p.ID == PlanTasks && !p.Removed {
			tasks = TasksFromEntries(p.Entries)
		}
	}
	var at time.Time
	for _, l := range lines {
		if l.Cwd != "" {
			st.cwd = l.Cwd
		}
		if l.At.After(at) {
			at = l.At
		}
	}
	if !at.IsZero() {
		// A week-old transcript read at start is a week-old session, not an active one.
		ctx = plans.WithTime(ctx, at)
	}
	b := &batch{sid: key}
	b.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}},
		"clientInfo": map[string]any{"name": "plandash-transcript"}},
		map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": AgentName, "title": AgentTitle}})
	if !st.announced || !slices.Contains(d.Session.Via, plans.ViaTranscript) {
		b.request("session/new", map[string]any{"cwd": st.cwd, "mcpServers": []any{}, "_meta": map[string]any{"plandash": map[string]any{
			"host": s.cfg.Host, "agentSessionId": st.sid, "via": plans.ViaTranscript, "transcriptPath": path}}},
			map[string]any{"sessionId": key})
	}
	usageChanged := false
	for _, l := range lines {
		switch l.Type {
		case "user":
			if l.Prompt != "" && !hooked {
				b.request("session/prompt", map[string]any{"sessionId": key,
					"prompt": []any{map[string]any{"type": "text", "text": l.Prompt}}}, nil)
			}
			for _, r := range l.Results {
				tasks = st.result(b, r, l.Result, tasks, hooked)
			}
		case "assistant":
			if l.Usage != nil && l.MessageKey != st.lastKey {
				st.lastKey = l.MessageKey
				u := &st.usage
				u.InputTokens += l.Usage.Input + l.Usage.CacheCreation + l.Usage.CacheRead
				u.OutputTokens += l.Usage.Output
				u.Used = l.Usage.Context()
				st.usageSeen, usageChanged = true, true
			}
			if l.Model != "" && l.Model != st.usage.Model {
				st.usage.Model, usageChanged = l.Model, true
			}
			if l.Text != "" && !hooked {
				b.update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "claude-transcript-" + itoaLine(l.Number),
					"content": map[string]any{"type": "text", "text": l.Text}})
			}
			for _, t := range l.Tools {
				st.call(b, t, hooked)
			}
		}
	}
	if usageChanged && st.usageSeen {
		u := st.usage
		// Claude Code records no context window size: Size stays unreported, not guessed.
		b.update(map[string]any{"sessionUpdate": "usage_update", "used": u.Used, "size": 0,
			"_meta": map[string]any{"plandash": map[string]any{"model": u.Model, "inputTokens": u.InputTokens, "outputTokens": u.OutputTokens}}})
	}
	if err := s.apply(ctx, b.out, "claude transcript: update not applied", "session", key, "file", path); err != nil {
		return err
	}
	st.announced = true
	return nil
}

// call records one tool call: a plan tool waits for its result (only then is the change real,
// and only then does a created task have its id); the others show as tool calls, by title.
func (st *transcriptState) call(b *batch, t TranscriptTool, hooked bool) {
	if isPlanTool(t.Name) {
		if len(st.pending) >= maxPendingTools || st.pendingN+len(t.Input) > maxPendingBytes {
			clear(st.pending)
			st.pendingN = 0
		}
		if len(t.Input) <= maxPendingBytes {
			st.pending[t.ID] = t
			st.pendingN += len(t.Input)
		} else if t.Name == ToolTodoWrite {
			// Too large to hold until its result: the list shows now.
			b.planTool(Event{HookEventName: EventPostToolUse, ToolName: t.Name, ToolInput: t.Input, ToolUseID: t.ID}, State{})
		}
		if t.Name == ToolExitPlanMode {
			// Claude Code writes the call, with the plan it injected, before the person answers:
			// until the result the plan is proposed, as the gate's PermissionRequest shows it.
			if p := ExitPlan(t.Input, nil); p.Markdown != "" {
				b.planTool(Event{HookEventName: EventPermissionRequest, ToolName: t.Name, ToolInput: t.Input, ToolUseID: t.ID}, State{})
			}
		}
		if t.Name != ToolAskUserQuestion {
			return
		}
	}
	if hooked {
		return
	}
	u := map[string]any{"sessionUpdate": "tool_call", "toolCallId": t.ID, "title": t.Title, "kind": toolKind(t.Name),
		"status": "in_progress", "_meta": map[string]any{"claudeCode": map[string]any{"toolName": t.Name}}}
	if t.Path != "" {
		u["locations"] = []any{map[string]any{"path": t.Path}}
	}
	b.update(u)
}

// result records a tool call's outcome and, for a plan tool, the plan it changed; it returns
// the session's tasks as they now are.
func (st *transcriptState) result(b *batch, r TranscriptResult, response json.RawMessage, tasks []Task, hooked bool) []Task {
	t, ok := st.pending[r.ToolUseID]
	if ok {
		delete(st.pending, r.ToolUseID)
		st.pendingN -= len(t.Input)
	}
	if ok && !r.IsError {
		switch t.Name {
		case ToolTaskCreate, ToolTaskUpdate:
			if c := ParseTaskChange(t.Input, response); c.ID != "" {
				tasks = applyTaskChange(tasks, c)
				b.tasks(tasks)
			}
		case ToolTodoWrite, ToolExitPlanMode:
			b.planTool(Event{HookEventName: EventPostToolUse, ToolName: t.Name, ToolInput: t.Input, ToolResponse: response, ToolUseID: t.ID}, State{})
		}
	}
	if hooked || (ok && t.Name != ToolAskUserQuestion) {
		return tasks
	}
	status := "completed"
	if r.IsError {
		status = "failed"
	}
	b.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": r.ToolUseID, "status": status})
	return tasks
}

func itoaLine(n int) string { return strconv.Itoa(n) }

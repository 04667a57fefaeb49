package pi

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/follow"
	"github.com/plandash/plandash/internal/plans"
)

// SessionStateFile is the name of the discoverer's state file in its state directory.
const SessionStateFile = "pi-sessions.json"

// maxSeenCalls bounds the tool calls a session parser remembers (to find a result's call).
const maxSeenCalls = 1024

// fileState is what a session file's earlier lines taught its parser.
type fileState struct {
	sid, cwd  string
	announced bool
	calls     map[string]SessionCall // tool calls not yet answered, by id
	usage     plans.Usage
}

func (st fileState) clone() fileState {
	st.calls = maps.Clone(st.calls)
	return st
}

// sessionParser turns one session file's lines into the session's activity, todos, plan and
// usage.
type sessionParser struct {
	svc   *Service
	path  string
	st    fileState
	lines []SessionLine
}

func (p *sessionParser) Line(b []byte, number int) error {
	l, err := DecodeSessionLine(b, number)
	if err != nil {
		return err
	}
	switch {
	case l.Type == "session" && p.st.sid == "":
		p.st.sid, p.st.cwd = l.SessionID, l.Cwd
	case l.Type == "message":
		p.lines = append(p.lines, l)
	}
	return nil
}

func (p *sessionParser) Flush(ctx context.Context) error {
	ready := p.st.sid != "" && (len(p.lines) > 0 || !p.st.announced)
	return follow.FlushLines(&p.lines, &p.st, fileState.clone, ready, func(st *fileState, lines []SessionLine) error {
		return p.svc.applySession(ctx, p.path, st, lines)
	})
}

func (p *sessionParser) Saved() follow.Saved { return follow.Saved{Thread: p.st.sid, Cwd: p.st.cwd} }

// applySession translates lines of one session file and applies them. When the extension
// reports the session too, it shows the prompts, answers, todo list and plans; the file then
// adds the tool calls and the usage.
func (s *Service) applySession(ctx context.Context, path string, st *fileState, lines []SessionLine) error {
	key := SessionKey(st.sid)
	hooked := agentkit.Hooked(ctx, &s.seen, s.plans, key)
	ctx = agentkit.AtLatest(ctx, lines, func(l SessionLine) time.Time { return l.At })
	b := &batch{agentkit.Batch{SID: key, IDPrefix: "pi-"}}
	b.Initialize("plandash-pi-sessions", map[string]any{"name": AgentName, "title": AgentTitle})
	if !st.announced {
		b.NewSession(st.cwd, map[string]any{
			"host": s.cfg.Host, "agentSessionId": st.sid, "via": plans.ViaTranscript, "transcriptPath": path})
	}
	usageChanged := false
	for _, l := range lines {
		switch l.Role {
		case "user":
			if l.Prompt != "" && !hooked {
				b.Request("session/prompt", map[string]any{"sessionId": key,
					"prompt": []any{map[string]any{"type": "text", "text": l.Prompt}}}, nil)
			}
		case "assistant":
			if l.Usage != nil {
				st.usage.InputTokens += l.Usage.Input + l.Usage.CacheRead + l.Usage.CacheWrite
				st.usage.OutputTokens += l.Usage.Output
				st.usage.Used = l.Usage.TotalTokens
				usageChanged = true
			}
			if l.Model != "" && l.Model != st.usage.Model {
				st.usage.Model, usageChanged = l.Model, true
			}
			if strings.TrimSpace(l.Text) != "" && !hooked {
				b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "pi-file-" + l.EntryID,
					"content": map[string]any{"type": "text", "text": l.Text}})
			}
			for _, c := range l.Calls {
				if len(st.calls) >= maxSeenCalls {
					clear(st.calls)
				}
				st.calls[c.ID] = c
			}
		case "toolResult":
			c, ok := st.calls[l.CallID]
			if !ok {
				c = SessionCall{ID: l.CallID, Name: l.ToolName, Title: l.ToolName}
			}
			delete(st.calls, l.CallID)
			s.sessionTool(b, c, l, hooked)
		}
	}
	if usageChanged {
		u := st.usage
		// Pi's session file names no context window size: Size stays unreported, not guessed.
		b.Update(map[string]any{"sessionUpdate": "usage_update", "used": u.Used, "size": 0,
			"_meta": map[string]any{"plandash": map[string]any{"model": u.Model, "inputTokens": u.InputTokens, "outputTokens": u.OutputTokens}}})
	}
	res, err := agentkit.Apply(ctx, s.plans, "pi", b.Out)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		s.cfg.Log.Warn("pi sessions: update not applied", "session", key, "file", path, "line", e.Line, "err", e.Message)
	}
	st.announced = true
	return nil
}

// sessionTool shows one tool call once it has its result: plandash's own tools as the todo list
// and the plan (unless the extension reported them already), any other tool by its title.
func (s *Service) sessionTool(b *batch, c SessionCall, l SessionLine, hooked bool) {
	switch {
	case c.Name == "todo_write":
		if !hooked && !l.IsError && l.Todos != nil {
			b.todos(l.Todos)
		}
		return
	case c.Name == "submit_plan":
		if !hooked && c.Plan != "" {
			state := "rejected"
			if !l.IsError && l.Decision == "approved" {
				state = "approved"
			}
			b.markdownPlan(c.Plan, state)
		}
		return
	}
	status := "completed"
	if l.IsError {
		status = "failed"
	}
	b.Update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": c.ID, "title": c.Title, "kind": toolKind(c.Name), "status": status})
}

// toolKind maps Pi's built-in tools onto ACP's tool kinds.
func toolKind(name string) string {
	switch name {
	case "read":
		return "read"
	case "edit", "write":
		return "edit"
	case "grep", "find", "ls":
		return "search"
	case "bash":
		return "execute"
	}
	return "other"
}

// DiscoverOptions tunes a Discoverer (follow.DiscoverOptions).
type DiscoverOptions = follow.DiscoverOptions

// Discoverer follows Pi's session files read-only and shows their sessions through the
// Service, without the extension installed.
type Discoverer = follow.Follower

// SessionsDir is where Pi keeps its session files: $PI_CODING_AGENT_SESSION_DIR, else the
// sessions directory of $PI_CODING_AGENT_DIR, else ~/.pi/agent/sessions.
func SessionsDir(getenv func(string) string) string {
	if d := getenv("PI_CODING_AGENT_SESSION_DIR"); d != "" {
		return d
	}
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return filepath.Join(d, "sessions")
	}
	return filepath.Join(getenv("HOME"), ".pi", "agent", "sessions")
}

// NewDiscoverer makes a Discoverer of Pi's sessions directory dir (see SessionsDir).
func (s *Service) NewDiscoverer(dir string, opts DiscoverOptions) *Discoverer {
	src := follow.Source{Name: "pi sessions", StateFile: SessionStateFile, Match: isSessionFile, MaxDepth: 2, MaxLineBytes: MaxSessionLine,
		New: func(path string, saved follow.Saved) follow.Parser {
			return &sessionParser{svc: s, path: path, st: fileState{sid: saved.Thread, cwd: saved.Cwd, announced: saved.Thread != "",
				calls: map[string]SessionCall{}}}
		}}
	return follow.Discover(dir, src, opts)
}

// isSessionFile reports whether rel (under the sessions directory) is a session file:
// --<cwd>--/<time>_<id>.jsonl.
func isSessionFile(rel string) bool {
	parts := strings.Split(rel, string(filepath.Separator))
	return len(parts) == 2 && strings.HasPrefix(parts[0], "--") && strings.HasSuffix(parts[1], ".jsonl")
}

package gemini

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

// ChatStateFile is the name of the discoverer's state file in its state directory.
const ChatStateFile = "gemini-chats.json"

// maxSeenCalls bounds the tool calls (and messages) a chat parser remembers having shown.
const maxSeenCalls = 1024

// chatState is what a chat file's earlier lines taught its parser.
type chatState struct {
	sid, cwd  string
	announced bool
	shown     map[string]bool // message ids whose text, and tool call ids whose outcome, were shown
	counted   map[string]bool // message ids whose tokens were counted
	usage     plans.Usage
}

func (st chatState) clone() chatState {
	st.shown, st.counted = maps.Clone(st.shown), maps.Clone(st.counted)
	return st
}

// chatParser turns one chat file's lines into the session's todos, plan, activity and usage.
type chatParser struct {
	svc   *Service
	path  string
	st    chatState
	lines []ChatLine
}

func (p *chatParser) Line(b []byte, number int) error {
	l, err := DecodeChatLine(b, number)
	if err != nil {
		return err
	}
	if l.SessionID != "" && p.st.sid == "" {
		p.st.sid = l.SessionID
	}
	if l.Type == "user" || l.Type == "gemini" {
		p.lines = append(p.lines, l)
	}
	return nil
}

func (p *chatParser) Flush(ctx context.Context) error {
	ready := len(p.lines) > 0 && p.st.sid != ""
	return follow.FlushLines(&p.lines, &p.st, chatState.clone, ready, func(st *chatState, lines []ChatLine) error {
		return p.svc.applyChat(ctx, p.path, st, lines)
	})
}

func (p *chatParser) Saved() follow.Saved { return follow.Saved{Thread: p.st.sid, Cwd: p.st.cwd} }

// applyChat translates lines of one chat and applies them. When hooks report the session too,
// they show its prompts, answers and tool calls; the chat then adds its todos, plan and usage.
func (s *Service) applyChat(ctx context.Context, path string, st *chatState, lines []ChatLine) error {
	key := SessionKey(st.sid)
	hooked := agentkit.Hooked(ctx, &s.seen, s.plans, key)
	ctx = agentkit.AtLatest(ctx, lines, func(l ChatLine) time.Time { return l.At })
	b := &batch{agentkit.Batch{SID: key, IDPrefix: "gemini-"}}
	b.Initialize("plandash-chat", map[string]any{"name": AgentName, "title": AgentTitle})
	if !st.announced {
		b.NewSession(st.cwd, map[string]any{
			"host": s.cfg.Host, "agentSessionId": st.sid, "via": plans.ViaTranscript, "transcriptPath": path})
	}
	usageChanged := false
	for _, l := range lines {
		if l.Type == "user" {
			if l.Prompt != "" && !hooked && !st.shown[l.MessageID] {
				st.remember(st.shown, l.MessageID)
				b.Request("session/prompt", map[string]any{"sessionId": key,
					"prompt": []any{map[string]any{"type": "text", "text": l.Prompt}}}, nil)
			}
			continue
		}
		if l.Tokens != nil && !st.counted[l.MessageID] {
			st.remember(st.counted, l.MessageID)
			st.usage.InputTokens += l.Tokens.Input
			st.usage.OutputTokens += l.Tokens.Output + l.Tokens.Thoughts
			st.usage.Used = l.Tokens.Total
			usageChanged = true
		}
		if l.Model != "" && l.Model != st.usage.Model {
			st.usage.Model, usageChanged = l.Model, true
		}
		if l.Text != "" && !hooked && !st.shown[l.MessageID] {
			st.remember(st.shown, l.MessageID)
			b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "gemini-chat-" + l.MessageID,
				"content": map[string]any{"type": "text", "text": l.Text}})
		}
		for _, c := range l.Tools {
			s.chatTool(b, st, c, hooked, path)
		}
	}
	if usageChanged {
		u := st.usage
		// Gemini CLI records no context window size: Size stays unreported, not guessed.
		b.Update(map[string]any{"sessionUpdate": "usage_update", "used": u.Used, "size": 0,
			"_meta": map[string]any{"plandash": map[string]any{"model": u.Model, "inputTokens": u.InputTokens, "outputTokens": u.OutputTokens}}})
	}
	res, err := agentkit.Apply(ctx, s.plans, "gemini", b.Out)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		s.cfg.Log.Warn("gemini chat: update not applied", "session", key, "file", path, "line", e.Line, "err", e.Message)
	}
	st.announced = true
	return nil
}

// chatTool shows one tool call once it has an outcome: write_todos' list and exit_plan_mode's
// plan as plans (a call Gemini CLI refused changes nothing), any other tool by its title.
func (s *Service) chatTool(b *batch, st *chatState, c ChatTool, hooked bool, path string) {
	done := c.Status == "success" || c.Status == "error" || c.Status == "cancelled"
	if !done || st.shown[c.ID] {
		return
	}
	st.remember(st.shown, c.ID)
	switch {
	case c.Name == ToolWriteTodos && c.Status == "success":
		b.planTool(Event{HookEventName: EventAfterTool, ToolName: c.Name, ToolInput: c.Args}, State{})
		return
	case c.Name == ToolExitPlanMode:
		ev := Event{HookEventName: EventBeforeTool, ToolName: c.Name, ToolInput: c.Args, SessionID: st.sid, Cwd: st.cwd, TranscriptPath: path}
		b.planTool(ev, State{Plan: s.readPlan(ev)})
		return
	case hooked:
		return
	}
	status := "completed"
	if c.Status != "success" {
		status = "failed"
	}
	b.Update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": c.ID, "title": c.Title, "kind": "other", "status": status,
		"_meta": map[string]any{"gemini": map[string]any{"toolName": c.Name}}})
}

func (st *chatState) remember(m map[string]bool, id string) {
	if id == "" {
		return
	}
	if len(m) >= maxSeenCalls {
		clear(m)
	}
	m[id] = true
}

// DiscoverOptions tunes a Discoverer (follow.DiscoverOptions).
type DiscoverOptions = follow.DiscoverOptions

// Discoverer follows Gemini CLI's chat files (~/.gemini/tmp/<project>/chats/session-*.jsonl)
// read-only and shows their sessions through the Service, without any hook installed.
type Discoverer = follow.Follower

// NewDiscoverer makes a Discoverer of Gemini CLI's temporary directory dir (~/.gemini/tmp).
func (s *Service) NewDiscoverer(dir string, opts DiscoverOptions) *Discoverer {
	src := follow.Source{Name: "gemini chats", StateFile: ChatStateFile, Match: isChat, MaxDepth: 2, MaxLineBytes: MaxChatLine,
		New: func(path string, saved follow.Saved) follow.Parser {
			cwd := saved.Cwd
			if cwd == "" {
				cwd = projectRoot(path)
			}
			return &chatParser{svc: s, path: path, st: chatState{sid: saved.Thread, cwd: cwd, shown: map[string]bool{}, counted: map[string]bool{}}}
		}}
	return follow.Discover(dir, src, opts)
}

// isChat reports whether rel (under ~/.gemini/tmp) is a chat: <project>/chats/session-*.jsonl.
func isChat(rel string) bool {
	parts := strings.Split(rel, string(filepath.Separator))
	return len(parts) == 3 && parts[1] == "chats" && strings.HasPrefix(parts[2], "session-") && strings.HasSuffix(parts[2], ".jsonl")
}

// projectRoot is the project directory Gemini CLI records next to a chat's directory
// (<project>/.project_root), read the careful way; "" when it cannot be read.
func projectRoot(chat string) string {
	b, err := follow.ReadSmall(filepath.Join(filepath.Dir(filepath.Dir(chat)), ".project_root"), 4096)
	if err != nil {
		return ""
	}
	root := strings.TrimSpace(string(b))
	if !filepath.IsAbs(root) || strings.ContainsAny(root, "\n\x00") {
		return ""
	}
	return root
}

package qwen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/follow"
	"github.com/plandash/plandash/internal/plans"
)

// ChatStateFile is the name of the discoverer's state file in its state directory.
const ChatStateFile = "qwen-chats.json"

// MaxChatLine bounds one chat line: a longer one (a huge tool result) is skipped and reported,
// never buffered.
const MaxChatLine = 8 << 20

// ChatDir is where Qwen Code keeps its chats: $QWEN_HOME/projects, else ~/.qwen/projects, one
// directory per project holding chats/<session-id>.jsonl.
// It is "" when neither is set.
func ChatDir(getenv func(string) string) string {
	if getenv("QWEN_HOME") == "" && getenv("HOME") == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(SettingsPath(getenv)), "projects")
}

// ChatLine is what plandash keeps of one line of a Qwen Code chat file: who wrote it, where,
// and only what plandash shows (the person's prompt, the model's text, the calls of the plan
// tools). Tool results and system records are dropped.
type ChatLine struct {
	SessionID, Cwd, Type string
	At                   time.Time
	Prompt, Text         string
	Calls                []ChatCall
}

// ChatCall is a plan tool's call in a model message.
type ChatCall struct {
	Name string
	Args json.RawMessage
}

// DecodeChatLine reads one chat line. It fails only when the line is not a JSON object; a line
// of another kind (tool results, system records) decodes with nothing to show.
func DecodeChatLine(b []byte) (ChatLine, error) {
	var w struct {
		SessionID  string `json:"sessionId"`
		Type       string `json:"type"`
		Provenance string `json:"provenance"`
		Cwd        string `json:"cwd"`
		Timestamp  string `json:"timestamp"`
		Message    *struct {
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"message"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return ChatLine{}, fmt.Errorf("qwen chat line: %w", err)
	}
	l := ChatLine{SessionID: w.SessionID, Cwd: w.Cwd, Type: w.Type}
	l.At, _ = time.Parse(time.RFC3339Nano, w.Timestamp)
	if w.Message == nil || (w.Type != "user" && w.Type != "assistant") {
		return l, nil
	}
	var text []string
	for _, p := range w.Message.Parts {
		switch {
		case p.FunctionCall != nil && (p.FunctionCall.Name == ToolTodoWrite || p.FunctionCall.Name == ToolExitPlanMode):
			l.Calls = append(l.Calls, ChatCall{Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
		case p.Text != "":
			text = append(text, p.Text)
		}
	}
	joined := strings.Join(text, "\n")
	switch {
	case w.Type == "user" && (w.Provenance == "" || w.Provenance == "real_user"):
		l.Prompt = joined
	case w.Type == "assistant":
		l.Text = joined
	}
	return l, nil
}

// chatParser turns one chat file's lines into the session's todos, plan and activity.
type chatParser struct {
	svc       *Service
	path      string
	sid, cwd  string
	announced bool
	lines     [][]byte
}

func (p *chatParser) Line(b []byte, _ int) error {
	l, err := DecodeChatLine(b)
	if err != nil {
		return err
	}
	if p.sid == "" && l.SessionID != "" {
		p.sid = l.SessionID
	}
	if p.cwd == "" && filepath.IsAbs(l.Cwd) {
		p.cwd = l.Cwd
	}
	if l.Prompt != "" || l.Text != "" || len(l.Calls) > 0 {
		p.lines = append(p.lines, bytes.Clone(b)) // the follower reuses b for the next line
	}
	return nil
}

func (p *chatParser) Flush(ctx context.Context) error {
	lines := p.lines
	p.lines = nil
	if len(lines) == 0 || p.sid == "" {
		return nil
	}
	announced, err := p.svc.applyChat(ctx, p, lines)
	if err != nil {
		p.lines = nil
		return err
	}
	p.announced = announced
	return nil
}

func (p *chatParser) Saved() follow.Saved { return follow.Saved{Thread: p.sid, Cwd: p.cwd} }

// applyChat translates lines of one chat, through the same translation as hook events, and
// applies them in one batch. When hooks report the session too, they show its prompts and
// answers; the chat then adds only its todos and plan, which replace the same plans whole.
func (s *Service) applyChat(ctx context.Context, p *chatParser, lines [][]byte) (announced bool, err error) {
	key := SessionKey(p.sid)
	hooked := agentkit.Hooked(ctx, &s.seen, s.plans, key)
	var items []plans.Item
	var at time.Time
	announce := !p.announced
	add := func(ev Event) error {
		ev.SessionID, ev.Cwd, ev.TranscriptPath = p.sid, p.cwd, p.path
		msgs, err := Translate(ev, State{Announce: announce, Host: s.cfg.Host, Via: plans.ViaTranscript})
		if err != nil {
			return err
		}
		announce = false
		for _, line := range msgs {
			decoded, err := acp.DecodeLine(line)
			if err != nil {
				return err
			}
			for _, m := range decoded {
				items = append(items, plans.Item{Line: len(items) + 1, Msg: m})
			}
		}
		return nil
	}
	for _, raw := range lines {
		l, err := DecodeChatLine(raw)
		if err != nil {
			continue // Line accepted it: cannot happen
		}
		if l.At.After(at) {
			at = l.At
		}
		if l.Prompt != "" && !hooked {
			if err := add(Event{HookEventName: EventUserPromptSubmit, SubmittedPrompt: l.Prompt, Raw: raw}); err != nil {
				return false, err
			}
		}
		if l.Text != "" && !hooked {
			if err := add(Event{HookEventName: EventStop, LastMessage: l.Text, Raw: raw}); err != nil {
				return false, err
			}
		}
		for _, c := range l.Calls {
			// A todo list is shown as the call's input, as PostToolUse does; a plan as proposed.
			ev := Event{HookEventName: EventPostToolUse, ToolName: c.Name, ToolInput: c.Args, Raw: raw}
			if c.Name == ToolExitPlanMode {
				ev.HookEventName = EventPermissionRequest
			}
			if err := add(ev); err != nil {
				return false, err
			}
		}
	}
	if len(items) == 0 {
		return p.announced, nil
	}
	if !at.IsZero() {
		ctx = plans.WithTime(ctx, at)
	}
	res, err := s.plans.Apply(ctx, plans.NewStream(), items)
	if err != nil {
		return false, err
	}
	for _, e := range res.Errors {
		s.cfg.Log.Warn("qwen chats: update not applied", "session", key, "line", e.Line, "err", e.Message)
	}
	return true, nil
}

// DiscoverOptions tunes a Discoverer (follow.DiscoverOptions).
type DiscoverOptions = follow.DiscoverOptions

// Discoverer follows Qwen Code's chat files (~/.qwen/projects/<project>/chats/<id>.jsonl)
// read-only and shows their sessions through the Service, without any hook installed.
type Discoverer = follow.Follower

// NewDiscoverer makes a Discoverer of Qwen Code's projects directory dir (see ChatDir).
func (s *Service) NewDiscoverer(dir string, opts DiscoverOptions) *Discoverer {
	src := follow.Source{Name: "qwen chats", StateFile: ChatStateFile, Match: isChat, MaxDepth: 2, MaxLineBytes: MaxChatLine,
		New: func(path string, saved follow.Saved) follow.Parser {
			return &chatParser{svc: s, path: path, sid: saved.Thread, cwd: saved.Cwd, announced: saved.Thread != ""}
		}}
	return follow.Discover(dir, src, opts)
}

// isChat reports whether rel (under the projects directory) is a chat: <project>/chats/*.jsonl.
func isChat(rel string) bool {
	parts := strings.Split(rel, string(filepath.Separator))
	return len(parts) == 3 && parts[1] == "chats" && strings.HasSuffix(parts[2], ".jsonl")
}

package pi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxSessionLine bounds one line of a Pi session file: a longer one is skipped and reported,
// never buffered whole.
const MaxSessionLine = 8 << 20

// maxToolTitle bounds a tool call's title, made from its name and the start of its arguments.
const maxToolTitle = 200

// SessionLine is what plandash keeps of one line of a Pi session file
// (~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl; docs/session-format.md in the package): the
// header, or a message with only what plandash shows. Tool results' output and file contents
// are dropped.
type SessionLine struct {
	Number int
	Type   string // "session" (the header), "message"; others show nothing
	At     time.Time
	// Header.
	SessionID, Cwd string
	// Message.
	EntryID string
	Role    string // "user", "assistant", "toolResult"
	Prompt  string // a user message's text
	Text    string // an assistant message's text
	Model   string
	Usage   *SessionUsage
	Calls   []SessionCall // an assistant message's tool calls
	// A tool result: which call, whether it failed, and for plandash's own tools the details
	// the extension recorded (todo_write's list, submit_plan's decision).
	CallID, ToolName string
	IsError          bool
	Todos            []Todo
	Decision         string
}

// SessionUsage is one model response's usage as Pi records it.
type SessionUsage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	CacheRead   int64 `json:"cacheRead"`
	CacheWrite  int64 `json:"cacheWrite"`
	TotalTokens int64 `json:"totalTokens"`
}

// SessionCall is one tool call of an assistant message.
type SessionCall struct {
	ID, Name, Title string
	// Plan is submit_plan's plan, kept for that tool only.
	Plan string
}

type rawContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type rawLine struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Cwd       string `json:"cwd"`
	Message   *struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		Usage      *SessionUsage   `json:"usage"`
		ToolCallID string          `json:"toolCallId"`
		ToolName   string          `json:"toolName"`
		IsError    bool            `json:"isError"`
		Details    json.RawMessage `json:"details"`
	} `json:"message"`
}

// DecodeSessionLine reads one line of a Pi session file. It fails, saying which line, when the
// line is not a JSON object with a type; parts of an unexpected shape are left out.
func DecodeSessionLine(b []byte, number int) (SessionLine, error) {
	var r rawLine
	if err := json.Unmarshal(bytes.TrimSpace(b), &r); err != nil {
		return SessionLine{}, fmt.Errorf("pi session line %d: %w", number, err)
	}
	if r.Type == "" {
		return SessionLine{}, fmt.Errorf("pi session line %d: no type", number)
	}
	l := SessionLine{Number: number, Type: r.Type}
	l.At, _ = time.Parse(time.RFC3339Nano, r.Timestamp)
	switch {
	case r.Type == "session":
		l.SessionID, l.Cwd = hookkit.Truncate(r.ID, 256), hookkit.Truncate(r.Cwd, 4096)
		return l, nil
	case r.Type != "message" || r.Message == nil:
		return l, nil
	}
	m := r.Message
	l.EntryID, l.Role = hookkit.Truncate(r.ID, 64), m.Role
	switch m.Role {
	case "user":
		l.Prompt = hookkit.Truncate(contentText(m.Content), maxText)
	case "assistant":
		l.Model, l.Usage = hookkit.Truncate(m.Model, 256), m.Usage
		var blocks []rawContent
		_ = json.Unmarshal(m.Content, &blocks)
		var text []string
		for _, c := range blocks {
			switch c.Type {
			case "text":
				text = append(text, c.Text)
			case "toolCall":
				call := SessionCall{ID: hookkit.Truncate(c.ID, 256), Name: hookkit.Truncate(c.Name, 128), Title: toolTitle(c.Name, c.Arguments)}
				if c.Name == "submit_plan" {
					var a struct {
						Plan string `json:"plan"`
					}
					_ = json.Unmarshal(c.Arguments, &a)
					call.Plan = hookkit.Truncate(a.Plan, maxPlan)
				}
				l.Calls = append(l.Calls, call)
			}
		}
		l.Text = hookkit.Truncate(strings.Join(text, "\n"), maxText)
	case "toolResult":
		l.CallID, l.ToolName, l.IsError = hookkit.Truncate(m.ToolCallID, 256), hookkit.Truncate(m.ToolName, 128), m.IsError
		var d struct {
			Todos    []Todo `json:"todos"`
			Decision string `json:"decision"`
		}
		if m.ToolName == "todo_write" || m.ToolName == "submit_plan" {
			_ = json.Unmarshal(m.Details, &d)
		}
		l.Todos, l.Decision = d.Todos, d.Decision
	}
	return l, nil
}

// contentText is a message's text: the string content, or its text blocks joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []rawContent
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, c := range blocks {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolTitle is a call's one-line title: the tool and the start of its arguments.
func toolTitle(name string, args json.RawMessage) string {
	in := string(bytes.Join(bytes.Fields(args), []byte(" ")))
	if in == "" || in == "{}" || in == "null" {
		return hookkit.Truncate(name, maxToolTitle)
	}
	return hookkit.Truncate(name+" "+in, maxToolTitle)
}

package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// Bounds on reading Gemini CLI's chat files (~/.gemini/tmp/<project>/chats/session-*.jsonl).
const (
	// MaxChatLine bounds one chat line: a longer one is skipped and reported, never buffered.
	MaxChatLine = 8 << 20
	// maxToolArgs bounds what is kept of a plan tool's arguments (a todo list, a plan's file name).
	maxToolArgs = 1 << 20
)

// ChatLine is what plandash keeps of one chat line: the session's header, or a message with
// only what plandash shows (the person's prompt, the model's text, tool calls by title, plan
// tools' arguments, token usage). Tool results and file contents are dropped while decoding.
type ChatLine struct {
	Number int
	// SessionID is set on the file's header line (and on messages that carry it).
	SessionID string
	// MessageID is set on a message; Gemini CLI writes a message again as it grows (its tool
	// calls, their results), under the same id.
	MessageID string
	Type      string // "user", "gemini"; others (info, error, "$set" updates) show nothing
	At        time.Time
	Prompt    string
	Text      string
	Model     string
	Tokens    *ChatTokens
	Tools     []ChatTool
}

// ChatTokens is one model response's usage as Gemini CLI records it.
type ChatTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

// ChatTool is one tool call of a model response.
type ChatTool struct {
	ID, Name string
	// Args is kept for plan tools (write_todos, exit_plan_mode) only.
	Args   json.RawMessage
	Title  string
	Status string // "success", "error", "cancelled", …
}

type wireChatLine struct {
	SessionID string         `json:"sessionId"`
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	Timestamp string         `json:"timestamp"`
	Content   jsontext.Value `json:"content"`
	Model     string         `json:"model"`
	Tokens    *ChatTokens    `json:"tokens"`
	ToolCalls []struct {
		ID          string         `json:"id"`
		Name        string         `json:"name"`
		Args        jsontext.Value `json:"args"`
		Status      string         `json:"status"`
		Description string         `json:"description"`
		DisplayName string         `json:"displayName"`
	} `json:"toolCalls"`
}

// DecodeChatLine reads one chat line (without its newline). It fails when the line is too
// long, not UTF-8, or not a JSON object of the chat's shape.
func DecodeChatLine(b []byte, number int) (ChatLine, error) {
	fail := func(format string, args ...any) (ChatLine, error) {
		return ChatLine{}, fmt.Errorf("line %d: "+format, append([]any{number}, args...)...)
	}
	if len(b) > MaxChatLine {
		return fail("over the %d MiB limit", MaxChatLine>>20)
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return fail("not a JSON object")
	}
	if bytes.HasPrefix(t, []byte(`{"$set"`)) {
		// Metadata updates (lastUpdated, a rewritten message list on resume) show nothing new.
		if !utf8.Valid(t) {
			return fail("not valid UTF-8")
		}
		return ChatLine{Number: number}, nil
	}
	var w wireChatLine
	if err := jsonv2.Unmarshal(t, &w); err != nil {
		return fail("%v", err)
	}
	if len(w.SessionID) > 255 || len(w.ID) > 255 {
		return fail("id over 255 bytes")
	}
	l := ChatLine{Number: number, SessionID: w.SessionID, MessageID: w.ID, Type: w.Type}
	if at, err := time.Parse(time.RFC3339Nano, w.Timestamp); err == nil {
		l.At = at
	}
	switch w.Type {
	case "user":
		if s := strings.TrimSpace(contentText(w.Content)); !strings.HasPrefix(s, "<session_context>") {
			l.Prompt = hookkit.Truncate(s, maxPromptText)
		}
	case "gemini":
		l.Text = hookkit.Truncate(strings.TrimSpace(contentText(w.Content)), maxPromptText)
		if len(w.Model) <= 128 {
			l.Model = w.Model
		}
		if tk := w.Tokens; tk != nil && tk.Input >= 0 && tk.Output >= 0 && tk.Total >= 0 && tk.Cached >= 0 && tk.Thoughts >= 0 && tk.Tool >= 0 {
			l.Tokens = tk
		}
		for _, c := range w.ToolCalls {
			if c.ID == "" || len(c.ID) > 255 || len(c.Name) > 255 || len(c.Status) > 32 {
				continue
			}
			title := strings.Join(strings.Fields(c.DisplayName+": "+c.Description), " ")
			if c.Description == "" {
				title = c.DisplayName
			}
			if title == "" {
				title = c.Name
			}
			tc := ChatTool{ID: c.ID, Name: c.Name, Title: hookkit.Truncate(title, 200), Status: c.Status}
			if (c.Name == ToolWriteTodos || c.Name == ToolExitPlanMode) && len(c.Args) <= maxToolArgs {
				tc.Args = json.RawMessage(c.Args)
			}
			l.Tools = append(l.Tools, tc)
		}
	}
	return l, nil
}

// contentText is a message's text: a string, or the text of its parts ([{"text": …}]).
func contentText(v jsontext.Value) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	if v[0] == '"' {
		var s string
		_ = jsonv2.Unmarshal(v, &s)
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if jsonv2.Unmarshal(v, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

package claude

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

// Bounds on reading Claude Code's transcripts (~/.claude/projects/<dir>/<session>.jsonl).
const (
	// MaxTranscriptLine bounds one transcript line. Claude Code writes whole system prompts and
	// tool outputs on a line; a longer one is skipped and reported, never buffered whole.
	MaxTranscriptLine = 8 << 20
	// maxPlanInput bounds what is kept of a plan tool's input or result (a plan's markdown,
	// a task list); the rest of a transcript line is never kept.
	maxPlanInput = 1 << 20
)

// TranscriptLine is what plandash keeps of one transcript line: only what it shows (prompts,
// the assistant's text, tool calls' titles, plan tools' inputs and results, token usage).
// Tool outputs, file contents and system prompts are dropped while decoding.
type TranscriptLine struct {
	Number int
	Type   string // "user", "assistant"; other types carry nothing plandash shows
	// At is when Claude Code wrote the line (zero when it did not say).
	At        time.Time
	SessionID string
	Cwd       string
	// Sidechain lines are a sub-agent's; they are not the session's own plan.
	Sidechain bool
	// Prompt is what the person typed (a user line that is not a tool result).
	Prompt string
	// Text is the assistant's text blocks, joined.
	Text    string
	Tools   []TranscriptTool
	Results []TranscriptResult
	// Result is the line's toolUseResult (what the tool returned, structured), kept only when
	// the line answers one call and is small enough; the parser keeps it for plan tools only.
	Result json.RawMessage
	// MessageKey identifies the model response the line belongs to: Claude Code writes one
	// line per content block, each repeating the response's usage, which counts once.
	MessageKey string
	Model      string
	Usage      *TokenUsage
}

// TranscriptTool is one tool call the assistant made.
type TranscriptTool struct {
	ID, Name string
	// Input is kept for plan tools (TodoWrite, the Task tools, ExitPlanMode, AskUserQuestion)
	// only; the others keep just the title and the file they work on.
	Input json.RawMessage
	Title string
	Path  string
}

// TranscriptResult is one tool call's outcome; its output is not kept.
type TranscriptResult struct {
	ToolUseID string
	IsError   bool
}

// TokenUsage is one model response's usage as the transcript records it.
type TokenUsage struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Output        int64 `json:"output_tokens"`
}

// Context is the tokens the response's context held: its whole input and its output.
func (u TokenUsage) Context() int64 { return u.Input + u.CacheCreation + u.CacheRead + u.Output }

type wireBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	IsError   bool           `json:"is_error"`
}

type wireLine struct {
	Type        string `json:"type"`
	Timestamp   string `json:"timestamp"`
	SessionID   string `json:"sessionId"`
	Cwd         string `json:"cwd"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	RequestRef  string `json:"requestRef"`
	Message     *struct {
		ID      string         `json:"id"`
		Model   string         `json:"model"`
		Content jsontext.Value `json:"content"`
		Usage   *TokenUsage    `json:"usage"`
	} `json:"message"`
	ToolUseResult jsontext.Value `json:"toolUseResult"`
}

// relevant is a cheap first look: a line that names neither role is one of the many kinds
// (attachments, API request records, snapshots) that carry nothing shown, and is not parsed.
// A line that names one is parsed, and its own type decides.
func relevant(b []byte) bool {
	return bytes.Contains(b, []byte(`"user"`)) || bytes.Contains(b, []byte(`"assistant"`))
}

// DecodeTranscriptLine reads one transcript line (without its newline). It fails when the line
// is too long, not UTF-8, or not a JSON object of the transcript's shape; a line of a type
// plandash does not show decodes to a TranscriptLine with only its Type (or none) set.
func DecodeTranscriptLine(b []byte, number int) (TranscriptLine, error) {
	fail := func(format string, args ...any) (TranscriptLine, error) {
		return TranscriptLine{}, fmt.Errorf("line %d: "+format, append([]any{number}, args...)...)
	}
	if len(b) > MaxTranscriptLine {
		return fail("over the %d MiB limit", MaxTranscriptLine>>20)
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return fail("not a JSON object")
	}
	if !relevant(t) {
		// Still refuse what is not JSON text at all (a binary file), without parsing.
		if !utf8.Valid(t) {
			return fail("not valid UTF-8")
		}
		return TranscriptLine{Number: number}, nil
	}
	var w wireLine
	if err := jsonv2.Unmarshal(t, &w); err != nil {
		return fail("%v", err)
	}
	l := TranscriptLine{Number: number, Type: w.Type, SessionID: w.SessionID, Cwd: w.Cwd, Sidechain: w.IsSidechain}
	if at, err := time.Parse(time.RFC3339Nano, w.Timestamp); err == nil {
		l.At = at
	}
	if len(l.SessionID) > 255 {
		return fail("sessionId over 255 bytes")
	}
	if len(l.Cwd) > 4096 {
		l.Cwd = ""
	}
	if w.Message == nil || (w.Type != "user" && w.Type != "assistant") {
		return l, nil
	}
	m := w.Message
	var blocks []wireBlock
	content := bytes.TrimSpace(m.Content)
	switch {
	case len(content) > 0 && content[0] == '"':
		var s string
		if err := jsonv2.Unmarshal(content, &s); err != nil {
			return fail("message.content: %v", err)
		}
		blocks = []wireBlock{{Type: "text", Text: s}}
	case len(content) > 0 && content[0] == '[':
		if err := jsonv2.Unmarshal(content, &blocks); err != nil {
			return fail("message.content: %v", err)
		}
	}
	var texts []string
	for _, blk := range blocks {
		switch blk.Type {
		case "text":
			if s := strings.TrimSpace(blk.Text); s != "" {
				texts = append(texts, hookkit.Truncate(s, maxPromptText))
			}
		case "tool_use":
			if blk.ID == "" || len(blk.ID) > 255 || len(blk.Name) > 255 {
				continue
			}
			l.Tools = append(l.Tools, transcriptTool(blk))
		case "tool_result":
			if blk.ToolUseID != "" && len(blk.ToolUseID) <= 255 {
				l.Results = append(l.Results, TranscriptResult{ToolUseID: blk.ToolUseID, IsError: blk.IsError})
			}
		}
	}
	text := hookkit.Truncate(strings.Join(texts, "\n\n"), maxPromptText)
	if w.Type == "user" {
		if len(l.Results) == 0 && !w.IsMeta && !isCommandEcho(text) {
			l.Prompt = text
		}
		if r := bytes.TrimSpace(w.ToolUseResult); len(l.Results) == 1 && len(r) > 0 && len(r) <= maxPlanInput && r[0] == '{' {
			l.Result = json.RawMessage(r) // the decoder's own copy
		}
		return l, nil
	}
	l.Text = text
	if len(m.Model) <= 128 && m.Model != "<synthetic>" {
		l.Model = m.Model
	}
	if u := m.Usage; u != nil && u.Input >= 0 && u.CacheCreation >= 0 && u.CacheRead >= 0 && u.Output >= 0 {
		l.Usage = u
		l.MessageKey = m.ID + "\x00" + w.RequestRef
	}
	return l, nil
}

// isPlanTool reports whether a tool's input is kept: it is a plan, a task or a question.
func isPlanTool(name string) bool {
	switch name {
	case ToolTodoWrite, ToolTaskCreate, ToolTaskUpdate, ToolExitPlanMode, ToolAskUserQuestion:
		return true
	}
	return false
}

func transcriptTool(blk wireBlock) TranscriptTool {
	in := json.RawMessage(bytes.TrimSpace(blk.Input))
	f := fields(in)
	tt := TranscriptTool{ID: blk.ID, Name: blk.Name, Title: toolTitle(blk.Name, f)}
	if p, ok := strField(f, "file_path", "notebook_path", "path"); ok && strings.HasPrefix(p, "/") && len(p) <= 4096 {
		tt.Path = p
	}
	if isPlanTool(blk.Name) && len(in) <= maxPlanInput {
		tt.Input = bytes.Clone(in)
	}
	if blk.Name == ToolAskUserQuestion {
		if q := firstQuestion(in); q != "" {
			tt.Title = "Question: " + hookkit.Truncate(q, 200)
		}
	}
	return tt
}

// firstQuestion is the first question's text of AskUserQuestion's input.
func firstQuestion(in json.RawMessage) string {
	var v struct {
		Questions []struct {
			Question string `json:"question"`
		} `json:"questions"`
	}
	if json.Unmarshal(in, &v) != nil || len(v.Questions) == 0 {
		return ""
	}
	return strings.Join(strings.Fields(v.Questions[0].Question), " ")
}

// isCommandEcho reports whether a user line is Claude Code's record of a slash command or its
// output rather than something the person typed.
func isCommandEcho(s string) bool {
	return strings.HasPrefix(s, "<command-") || strings.HasPrefix(s, "<local-command-")
}

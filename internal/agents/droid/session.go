package droid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/agents/hookkit"
)

// MaxSessionLine bounds one line of a session file: a longer one is skipped and reported, never
// buffered.
const MaxSessionLine = 8 << 20

// SessionLine is what plandash keeps of one line of Droid's session file
// (~/.factory/sessions/<dir>/<id>.jsonl): the session's header, the person's prompt, the
// model's text, the spec of an ExitSpecMode call and its outcome, a todo list, a turn's end.
// Tool results, file contents and system reminders are dropped while decoding.
type SessionLine struct {
	Number int
	Kind   string // "session_start", "prompt", "text", "spec", "spec_result", "todos", "turn_end"; "" shows nothing
	At     time.Time
	// SessionID and Cwd are set on the header.
	SessionID, Cwd string
	// ID is the line's message id (prompts and texts), or the tool call's (specs and results).
	ID    string
	Text  string // a prompt, the model's text, a spec, a turn's end reason
	Title string // a spec's title
	// Approved is set on a spec_result: what Droid answered the call.
	Approved bool
	Todos    []Todo
}

type wireSessionLine struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Timestamp string          `json:"timestamp"`
	Reason    string          `json:"reason"`
	Message   *wireMessage    `json:"message"`
	Todos     json.RawMessage `json:"todos"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Visibility string          `json:"visibility"`
	Hook       string          `json:"hookEventName"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// DecodeSessionLine reads one line of a session file (without its newline) into the lines it
// shows: a message may carry a prompt or text and several calls. It fails when the line is too
// long, not UTF-8, or not a JSON object.
func DecodeSessionLine(b []byte, number int) ([]SessionLine, error) {
	fail := func(format string, args ...any) ([]SessionLine, error) {
		return nil, fmt.Errorf("line %d: "+format, append([]any{number}, args...)...)
	}
	if len(b) > MaxSessionLine {
		return fail("over the %d MiB limit", MaxSessionLine>>20)
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return fail("not a JSON object")
	}
	if !utf8.Valid(t) {
		return fail("not valid UTF-8")
	}
	var w wireSessionLine
	if err := json.Unmarshal(t, &w); err != nil {
		return fail("%v", err)
	}
	if len(w.ID) > 255 {
		return fail("id over 255 bytes")
	}
	at, _ := time.Parse(time.RFC3339Nano, w.Timestamp)
	one := func(l SessionLine) ([]SessionLine, error) {
		l.Number, l.At = number, at
		return []SessionLine{l}, nil
	}
	switch w.Type {
	case "session_start":
		return one(SessionLine{Kind: "session_start", SessionID: w.ID, Cwd: hookkit.Truncate(w.Cwd, 4096)})
	case "todo_state":
		var v struct {
			Todos json.RawMessage `json:"todos"`
		}
		if json.Unmarshal(w.Todos, &v) != nil {
			return nil, nil
		}
		todos, err := todoArray(v.Todos)
		if err != nil {
			return nil, nil
		}
		return one(SessionLine{Kind: "todos", Todos: todos})
	case "agent_turn_outcome":
		return one(SessionLine{Kind: "turn_end", Text: hookkit.Truncate(w.Reason, 64)})
	case "message":
		if w.Message == nil || w.Message.Visibility != "" || w.Message.Hook != "" {
			return nil, nil // reminders, hook records: nothing a person wrote or was shown by the model
		}
		return messageLines(w, number, at), nil
	}
	return nil, nil
}

// messageLines reads a message's blocks.
func messageLines(w wireSessionLine, number int, at time.Time) []SessionLine {
	var blocks []wireBlock
	if json.Unmarshal(w.Message.Content, &blocks) != nil {
		return nil
	}
	var out []SessionLine
	var text strings.Builder
	for _, bl := range blocks {
		switch {
		case bl.Type == "text":
			if strings.HasPrefix(strings.TrimSpace(bl.Text), "<system-reminder>") {
				continue
			}
			if text.Len() > 0 {
				text.WriteString("\n")
			}
			text.WriteString(bl.Text)
		case bl.Type == "tool_use" && bl.Name == ToolExitSpecMode:
			if plan := inputString(bl.Input, "plan"); plan != "" {
				out = append(out, SessionLine{Kind: "spec", ID: hookkit.Truncate(bl.ID, 255), Text: hookkit.Truncate(plan, maxPlanText),
					Title: hookkit.Truncate(inputString(bl.Input, "title"), 512)})
			}
		case bl.Type == "tool_result" && bl.ToolUseID != "":
			var s string
			if json.Unmarshal(bl.Content, &s) == nil && strings.HasPrefix(s, `{"approved":`) {
				state, _ := specOutcome(bl.Content)
				out = append(out, SessionLine{Kind: "spec_result", ID: hookkit.Truncate(bl.ToolUseID, 255), Approved: strings.HasPrefix(state, "approved")})
			}
		}
	}
	if s := strings.TrimSpace(text.String()); s != "" {
		kind := "text"
		if w.Message.Role == "user" {
			kind = "prompt"
		}
		out = append([]SessionLine{{Kind: kind, ID: w.ID, Text: hookkit.Truncate(s, maxPromptText)}}, out...)
	}
	for i := range out {
		out[i].Number, out[i].At = number, at
	}
	return out
}

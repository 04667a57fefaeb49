// Package codex is plandash's adapter for the Codex CLI running in a terminal: it decodes
// Codex's rollout files ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl), turns them into the
// same ACP JSON-RPC messages the ingest API takes, tails the sessions tree as Codex writes it,
// holds a turn's plan at the approval gate through Codex's Stop hook, and installs that hook
// into ~/.codex/hooks.json.
package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLineBytes bounds one rollout line. Codex writes the whole base instructions and every
// tool output on a line, so the bound is generous; a longer line is skipped and reported, never
// buffered whole.
const MaxLineBytes = 8 << 20

// Rollout line types (codex-rs/protocol RolloutItem, tagged "type" with content "payload").
// Other types (world_state, token_usage_record in 0.169.0) are decoded and passed over.
const (
	TypeSessionMeta  = "session_meta"
	TypeResponseItem = "response_item"
	TypeTurnContext  = "turn_context"
	TypeEventMsg     = "event_msg"
	TypeCompacted    = "compacted"
)

// Line is one rollout line. Payload is kept as written, so types and fields plandash does not
// know are never lost; Number is the line's 1-based position in its file (0 when unknown).
type Line struct {
	Timestamp string          `json:"timestamp,omitempty"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	Number    int             `json:"-"`
}

// LineError says why a rollout line was skipped, and where.
type LineError struct {
	Path    string // the rollout file, when known
	Line    int    // 1-based line number, 0 when unknown
	Message string
}

// Error names the file, the line and the problem.
func (e *LineError) Error() string {
	where := e.Path
	if where == "" {
		where = "rollout"
	}
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, e.Line)
	}
	return where + ": " + e.Message
}

// DecodeLine reads one rollout line (without its newline). It fails only when the line is too
// long, not UTF-8, not a JSON object, or has no string "type"; a payload of any shape is kept.
func DecodeLine(b []byte, number int) (Line, error) {
	fail := func(format string, args ...any) (Line, error) {
		return Line{}, &LineError{Line: number, Message: fmt.Sprintf(format, args...)}
	}
	if len(b) > MaxLineBytes {
		return fail("the line is over the %d MiB limit", MaxLineBytes>>20)
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return fail("empty line")
	}
	if !utf8.Valid(t) {
		return fail("not valid UTF-8")
	}
	var m struct {
		Timestamp json.RawMessage `json:"timestamp"`
		Type      json.RawMessage `json:"type"`
		Payload   json.RawMessage `json:"payload"`
	}
	if t[0] != '{' {
		return fail("not a JSON object")
	}
	if err := json.Unmarshal(t, &m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail("malformed JSON at byte %d: %v", se.Offset, se)
		}
		return fail("malformed JSON: %v", err)
	}
	l := Line{Number: number}
	if json.Unmarshal(m.Type, &l.Type) != nil || l.Type == "" {
		return fail(`no string "type"`)
	}
	_ = json.Unmarshal(m.Timestamp, &l.Timestamp) // a timestamp of another shape is only lost
	if p := bytes.TrimSpace(m.Payload); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		l.Payload = bytes.Clone(p)
	}
	return l, nil
}

// DecodeAll reads a whole rollout (for the Stop hook, which reads a bounded tail, and tests):
// every line that decodes, and an error per line that does not. A last line without its
// newline is read too. Lines over MaxLineBytes are reported and skipped.
func DecodeAll(b []byte) ([]Line, []*LineError) {
	var lines []Line
	var errs []*LineError
	n := 0
	for len(b) > 0 {
		n++
		line, rest, _ := bytes.Cut(b, []byte{'\n'})
		b = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l, err := DecodeLine(line, n)
		if err != nil {
			var le *LineError
			if errors.As(err, &le) {
				errs = append(errs, le)
			}
			continue
		}
		lines = append(lines, l)
	}
	return lines, errs
}

// ThreadIDFromPath reads the thread id from a rollout file name,
// rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl, for a file read from the middle (after a restart)
// whose session_meta line was not seen. It returns "" when the name does not have that shape.
func ThreadIDFromPath(path string) string {
	name := path[strings.LastIndexByte(path, '/')+1:]
	name, ok := strings.CutSuffix(name, ".jsonl")
	if !ok || !strings.HasPrefix(name, "rollout-") {
		return ""
	}
	// The uuid is the last five dash-separated groups (8-4-4-4-12).
	parts := strings.Split(name, "-")
	if len(parts) < 6 {
		return ""
	}
	id := strings.Join(parts[len(parts)-5:], "-")
	if len(id) != 36 {
		return ""
	}
	return id
}

package plans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of JSON shown to a person. Indenting is quadratic in nesting depth (a 54 KB value
// nested 9,000 deep indents to 162 MB), so what pages, fragments and diffs show of an agent's
// JSON is collapsed past MaxShownDepth and cut at MaxShownBytes; the raw value stays in the API.
const (
	MaxShownDepth = 20
	MaxShownBytes = 64 << 10
)

// ShownJSON is a JSON value formatted for reading, within the limits.
type ShownJSON struct {
	// Text is the value indented by two spaces, keys in the order the agent wrote them; objects
	// and arrays deeper than the depth limit read {…} and […]. Text that is not JSON is kept as
	// it is.
	Text string
	// Collapsed counts the objects and arrays replaced by {…} or […].
	Collapsed int
	// Truncated says Text stops before the value ends.
	Truncated bool
}

// Shortened reports whether Text is not the whole value.
func (s ShownJSON) Shortened() bool { return s.Collapsed > 0 || s.Truncated }

// Note says how Text was shortened, for a line under it; empty when it was not.
func (s ShownJSON) Note() string {
	var parts []string
	if s.Collapsed > 0 {
		parts = append(parts, fmt.Sprintf("nesting deeper than %d levels is collapsed ({…}, […])", MaxShownDepth))
	}
	if s.Truncated {
		parts = append(parts, fmt.Sprintf("cut at %d KiB", MaxShownBytes>>10))
	}
	if len(parts) == 0 {
		return ""
	}
	return "shortened: " + strings.Join(parts, "; ")
}

// Display is Text with the note as a last line when it was shortened, for places that show
// one string.
func (s ShownJSON) Display() string {
	if !s.Shortened() {
		return s.Text
	}
	return s.Text + "\n… " + s.Note()
}

// FormatJSON indents raw for a person within MaxShownDepth and MaxShownBytes.
func FormatJSON(raw []byte) ShownJSON { return FormatJSONWithin(raw, MaxShownDepth, MaxShownBytes) }

// FormatJSONWithin indents raw, collapsing objects and arrays nested deeper than maxDepth and
// cutting the text at maxBytes (on a character boundary). It works in one pass over the bytes,
// without decoding into values, so time and memory are linear in len(raw) and output is at most
// maxBytes plus one token.
func FormatJSONWithin(raw []byte, maxDepth, maxBytes int) ShownJSON {
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		text, cut := cutText(raw, maxBytes)
		return ShownJSON{Text: text, Truncated: cut}
	}
	out, collapsed, i := indent(raw, maxDepth, maxBytes, true)
	s := ShownJSON{Collapsed: collapsed}
	if skipSpace(raw, i) < len(raw) || len(out) > maxBytes {
		s.Truncated = true
		s.Text, _ = cutText(out, maxBytes)
		return s
	}
	s.Text = string(out)
	return s
}

// IndentShallow indents the outer maxDepth levels of the valid JSON raw and keeps what is nested
// deeper as it is (compact, when raw is): the whole value, readable, in time and space linear in
// len(raw). API answers use it where a plain indenting encoder would grow quadratically.
func IndentShallow(raw []byte, maxDepth int) []byte {
	out, _, _ := indent(bytes.TrimSpace(raw), maxDepth, -1, false)
	return out
}

// indent writes the valid JSON raw indented by two spaces, up to maxBytes of output (none when
// negative). Objects and arrays deeper than maxDepth are replaced by {…} and […] when collapse
// is set, else copied as they are. It returns the text, how many values were collapsed, and
// where in raw it stopped.
func indent(raw []byte, maxDepth, maxBytes int, collapse bool) (out []byte, collapsed, i int) {
	if maxBytes < 0 {
		out = make([]byte, 0, len(raw)+len(raw)/2)
	} else {
		out = make([]byte, 0, min(len(raw)+len(raw)/2, maxBytes+64))
	}
	depth := 0
	newline := func() {
		out = append(out, '\n')
		for range depth {
			out = append(out, ' ', ' ')
		}
	}
	for i < len(raw) && (maxBytes < 0 || len(out) < maxBytes) {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			j := stringEnd(raw, i)
			out = append(out, raw[i:j]...)
			i = j
		case '{', '[':
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if next := skipSpace(raw, i+1); next < len(raw) && raw[next] == closer {
				out = append(out, c, closer)
				i = next + 1
				continue
			}
			if depth >= maxDepth {
				end := containerEnd(raw, i)
				if collapse {
					out = append(out, c)
					out = append(out, "…"...)
					out = append(out, closer)
					collapsed++
				} else {
					out = append(out, raw[i:end]...)
				}
				i = end
				continue
			}
			out = append(out, c)
			depth++
			newline()
			i++
		case '}', ']':
			depth--
			newline()
			out = append(out, c)
			i++
		case ',':
			out = append(out, ',')
			newline()
			i++
		case ':':
			out = append(out, ':', ' ')
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	return out, collapsed, i
}

// cutText is b as text, cut to at most max bytes without splitting a character.
func cutText(b []byte, max int) (string, bool) {
	if len(b) <= max {
		return string(b), false
	}
	n := max
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the JSON string starting at b[i]; b is valid JSON.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// containerEnd is the index after the object or array starting at b[i]; b is valid JSON.
func containerEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(b)
}

// CutJSON is raw as compact text of at most max bytes, and whether it was cut: the "show raw"
// view of a value whose formatted text was shortened.
func CutJSON(raw []byte, max int) (string, bool) {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		raw = buf.Bytes()
	}
	return cutText(raw, max)
}

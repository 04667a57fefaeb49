package settingsfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ParseFile reads the settings file at path (its bytes b) as plandash merges into it, by the
// same rules for every agent:
//   - an empty file (or only space) is an empty object;
//   - comments are refused, saying where: plandash cannot keep them when it rewrites the file
//     (Gemini CLI reads them, but a rewrite that dropped them would lose the user's notes);
//   - anything else that is not valid JSON is refused with its line and column;
//   - the file must hold one JSON object, and nothing after it.
//
// Every error names path and says the file was left untouched.
func ParseFile(path string, b []byte) (Object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return Object{}, nil
	}
	var raw json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		if line, col, ok := comment(b); ok {
			return nil, fmt.Errorf("%s has a comment at line %d, column %d; plandash cannot keep comments when it rewrites the file, so it left it untouched: remove the comments or add plandash's hooks by hand",
				path, line, col)
		}
		return nil, SyntaxError(path, b, err)
	}
	o, err := ParseObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s must hold a JSON object; it was left untouched", path)
	}
	return o, nil
}

// SyntaxError says where the file at path (its bytes b) is broken, as an editor counts: line
// and column, from err as encoding/json gave it.
func SyntaxError(path string, b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %v; it was left untouched", path, err)
	}
	line, col := position(b, int(se.Offset)-1)
	return fmt.Errorf("%s is not valid JSON (line %d, column %d: %v); it was left untouched", path, line, col, se)
}

// position is the 1-based line and column of byte offset off in b, columns counted in bytes.
func position(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line, col = 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// comment finds the first // or /* outside a JSON string.
func comment(b []byte) (line, col int, ok bool) {
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && c == '/' && i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '*'):
			line, col = position(b, i)
			return line, col, true
		}
	}
	return 0, 0, false
}

// Indent formats a settings file as the agents write their own: two spaces, a final newline.
// b must be valid JSON (as Object.Marshal makes it); other bytes are returned as they are.
func Indent(b []byte) []byte {
	var buf bytes.Buffer
	if json.Indent(&buf, bytes.TrimRight(b, " \t\r\n"), "", "  ") != nil {
		return b
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

package delta

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/plans"
)

// These scanners split a plan's JSON into members and its entries into elements by finding
// where each value starts and ends, without decoding, on every update ingested. They read only
// JSON this process encoded; anything they cannot read falls back to encoding/json.

var errScan = errors.New("not a JSON value the scanner reads")

// scanObject splits a JSON object into its members, as json.Unmarshal into fields would (a
// repeated name keeps its last value).
func scanObject(b []byte) (Fields, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errScan
	}
	f := make(Fields, 16) // a plan has 17 members, most of them usually present
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return f, tail(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, errScan
		}
		end, escaped := scanString(b, i)
		if end < 0 {
			return nil, errScan
		}
		name, known := memberNames[string(b[i+1:end-1])] // no copy: a lookup by bytes does not allocate
		if !known {
			name = string(b[i+1 : end-1])
		}
		if escaped || !utf8.ValidString(name) { // encoding/json unescapes, and replaces bad UTF-8
			if err := json.Unmarshal(b[i:end], &name); err != nil {
				return nil, errScan
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errScan
		}
		i = skipSpace(b, i+1)
		vEnd := scanValue(b, i)
		if vEnd < 0 {
			return nil, errScan
		}
		f[name] = json.RawMessage(b[i:vEnd:vEnd])
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			return nil, errScan
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return f, tail(b, i+1)
		default:
			return nil, errScan
		}
	}
}

// memberNames holds the names a plan's JSON has, so splitting one into fields does not copy
// each name again for every revision ingested. It is read only.
var memberNames = func() map[string]string {
	m := map[string]string{}
	pt := reflect.TypeFor[plans.Plan]()
	for i := range pt.NumField() {
		n, _, _ := strings.Cut(pt.Field(i).Tag.Get("json"), ",")
		m[n] = n
	}
	return m
}()

// scanArray splits a JSON array into its elements.
func scanArray(b []byte) ([]json.RawMessage, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, errScan
	}
	out := []json.RawMessage{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, tail(b, i+1)
	}
	for {
		end := scanValue(b, i)
		if end < 0 {
			return nil, errScan
		}
		out = append(out, json.RawMessage(b[i:end:end]))
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, errScan
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return out, tail(b, i+1)
		default:
			return nil, errScan
		}
	}
}

// tail checks nothing but space follows a value ending at i.
func tail(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errScan
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// scanString returns the index just past the string starting at b[i] (a '"'), and whether it
// has escapes; -1 if it does not end.
func scanString(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			return j + 1, escaped
		case c < 0x20:
			return -1, false
		}
	}
	return -1, false
}

// scanValue returns the index just past the value starting at b[i], or -1. Nested objects and
// arrays are matched by depth; their members are checked no further than strings and brackets,
// so it accepts some invalid JSON (its callers only hand it JSON that json.Marshal wrote).
func scanValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) {
		c := b[j]
		if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			break
		}
		j++
	}
	if j == i || !isInteger(b[i:j]) && !json.Valid(b[i:j]) {
		return -1
	}
	return j
}

// isInteger reports whether v is a JSON integer (-?(0|[1-9][0-9]*)), the scalar a plan's JSON
// has most (revision, seq): checked here without encoding/json's scanner.
func isInteger(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 || v[0] == '0' && len(v) > 1 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

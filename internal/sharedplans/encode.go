package sharedplans

import (
	"strconv"
	"unicode/utf8"
)

// The plan encoder writes exactly what encoding/json writes for Plan (json.MarshalIndent with a
// two-space indent for files, json.Marshal for tool results), in one pass into a buffer of the
// exact size, where encoding/json needs a growing buffer and a second pass to indent a large
// plan. FuzzEncodePlan holds the two byte for byte.

// escLen is the escaped length of each ASCII byte under encoding/json's rules with HTML
// escaping: 1 for bytes copied as they are, 2 for \" \\ \b \f \n \r \t, 6 for \u00XX (other
// control characters, and <, > and &).
var escLen = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch {
		case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			t[b] = 2
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			t[b] = 6
		default:
			t[b] = 1
		}
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// quotedLen is len(appendQuoted(nil, s)).
func quotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			n += int(escLen[b])
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1, c == '\u2028', c == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// appendQuoted appends s as a JSON string exactly as encoding/json does with HTML escaping:
// invalid UTF-8 becomes \ufffd, and U+2028 and U+2029 are escaped.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if escLen[b] == 1 {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// planField is one member of Plan's encoding, in struct order.
type planField struct {
	key       string // the quoted key
	str       string
	num       int
	isNum     bool
	omitEmpty bool
}

func planFields(p *Plan) [7]planField {
	return [7]planField{
		{key: `"name"`, str: p.Name},
		{key: `"title"`, str: p.Title, omitEmpty: true},
		{key: `"content"`, str: p.Content},
		{key: `"author"`, str: p.Author, omitEmpty: true},
		{key: `"status"`, str: p.Status, omitEmpty: true},
		{key: `"revision"`, num: p.Revision, isNum: true},
		{key: `"updatedAt"`, str: p.UpdatedAt},
	}
}

// appendPlan appends p as json.MarshalIndent(p, "", "  ") when indent is set, else as
// json.Marshal(p).
func appendPlan(dst []byte, p *Plan, indent bool) []byte {
	sep, colon := ",", ":"
	if indent {
		sep, colon = ",\n  ", ": "
	}
	dst = append(dst, '{')
	if indent {
		dst = append(dst, "\n  "...)
	}
	first := true
	for _, f := range planFields(p) {
		if f.omitEmpty && f.str == "" {
			continue
		}
		if !first {
			dst = append(dst, sep...)
		}
		first = false
		dst = append(dst, f.key...)
		dst = append(dst, colon...)
		if f.isNum {
			dst = strconv.AppendInt(dst, int64(f.num), 10)
		} else {
			dst = appendQuoted(dst, f.str)
		}
	}
	if indent {
		dst = append(dst, '\n')
	}
	return append(dst, '}')
}

// planLen is len(appendPlan(nil, p, indent)), so the buffer is allocated once.
func planLen(p *Plan, indent bool) int {
	sep, colon := 1, 1
	n := 2 // braces
	if indent {
		sep, colon = 4, 2
		n += 4 // "\n  " after the opening brace, "\n" before the closing one
	}
	fields := 0
	for _, f := range planFields(p) {
		if f.omitEmpty && f.str == "" {
			continue
		}
		fields++
		n += len(f.key) + colon
		if f.isNum {
			n += len(strconv.Itoa(f.num))
		} else {
			n += quotedLen(f.str)
		}
	}
	return n + (fields-1)*sep
}

// encodePlan returns p's file (indent) or tool-result encoding in a buffer of the exact size.
func encodePlan(p *Plan, indent bool) []byte {
	return appendPlan(make([]byte, 0, planLen(p, indent)), p, indent)
}

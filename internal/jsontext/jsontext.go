// Package jsontext writes JSON strings byte for byte as encoding/json writes them, without its
// reflection and buffers: with HTML escaping (json.Marshal) or without (an Encoder after
// SetEscapeHTML(false)). FuzzAppendString holds it to encoding/json.
package jsontext

import "unicode/utf8"

// Escaping is which of encoding/json's two escapings a string gets.
type Escaping bool

const (
	// HTML escapes <, > and & as \u003c, \u003e and \u0026, as json.Marshal does.
	HTML Escaping = true
	// Plain leaves them as they are, as an Encoder with SetEscapeHTML(false) does.
	Plain Escaping = false
)

// escLen is the escaped length of each ASCII byte, for Plain ([0]) and HTML ([1]): 1 for bytes
// copied as they are, 2 for \" \\ \b \f \n \r \t, 6 for \u00XX (other control characters, and
// under HTML <, > and &).
var escLen = func() (t [2][utf8.RuneSelf]uint8) {
	for html := range 2 {
		for b := range utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				t[html][b] = 2
			case b < 0x20 || html == 1 && (b == '<' || b == '>' || b == '&'):
				t[html][b] = 6
			default:
				t[html][b] = 1
			}
		}
	}
	return t
}()

func (e Escaping) table() *[utf8.RuneSelf]uint8 {
	if e {
		return &escLen[1]
	}
	return &escLen[0]
}

const hexDigits = "0123456789abcdef"

// Len is len(AppendString(nil, s, e)).
func Len[T string | []byte](s T, e Escaping) int {
	esc := e.table()
	n := 2
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			n += int(esc[b])
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))])) // no copy: the conversion does not escape
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

// AppendString appends s as a quoted JSON string: invalid UTF-8 becomes \ufffd, and U+2028 and
// U+2029 are escaped for the JavaScript parsers that predate their being allowed in strings.
func AppendString[T string | []byte](dst []byte, s T, e Escaping) []byte {
	esc := e.table()
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if esc[b] == 1 {
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
		c, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))])) // no copy: the conversion does not escape
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

package acp

import (
	"encoding/binary"
	"math/bits"
)

// Valid reports exactly what encoding/json.Valid reports, without its byte-at-a-time state
// machine: every line ingested and every frame the proxy's tap posts is checked. Like json.Valid
// it checks the grammar only (invalid UTF-8 inside strings passes) and refuses nesting deeper
// than 10,000.
func Valid(b []byte) bool { return valid(b, nil) }

// valid is Valid that also notes in sp, when it is not nil, where the containers of b (sp's
// document) end: the walk that checks a line is the one that finds out, and decoding it then
// steps over each container in one move (see spans).
func valid(b []byte, sp *spans) bool {
	const maxDepth = 10000 // encoding/json's maxNestingDepth
	var arr [64]byte
	stack := arr[:0] // the open containers, '{' or '['
	var open [spanDepth]int
	i := vSkipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if stack = append(stack, c); len(stack) > maxDepth {
				return false
			}
			start := i
			i = vSkipSpace(b, i+1)
			if i < len(b) && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if sp != nil {
				sp.opened(&open, len(stack)-1, start)
			}
			if c == '{' {
				if i = vObjectKey(b, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = vStringEnd(b, i); i < 0 {
				return false
			}
		case c == 't':
			if i = vLiteral(b, i, "true"); i < 0 {
				return false
			}
		case c == 'f':
			if i = vLiteral(b, i, "false"); i < 0 {
				return false
			}
		case c == 'n':
			if i = vLiteral(b, i, "null"); i < 0 {
				return false
			}
		default:
			if i = vNumberEnd(b, i); i < 0 {
				return false
			}
		}
		// A value ended at i: close containers, or find the next member or element.
		for {
			i = vSkipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = vSkipSpace(b, i+1)
				if top == '{' {
					if i = vObjectKey(b, i); i < 0 {
						return false
					}
				}
				break
			}
			if top == '{' && b[i] != '}' || top == '[' && b[i] != ']' {
				return false
			}
			stack = stack[:len(stack)-1]
			i++
			if sp != nil {
				sp.closed(&open, len(stack), i)
			}
		}
	}
}

func vSkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// vObjectKey reads `"key" :` and the space after it from b[i], returning where the value starts,
// or -1.
func vObjectKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = vStringEnd(b, i); i < 0 {
		return -1
	}
	if i = vSkipSpace(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return vSkipSpace(b, i+1)
}

// vStringEnd returns the index past the string at b[i] == '"', or -1 if it is not a valid one.
func vStringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		// Most of a frame is the text of its strings: skip it eight bytes at a time up to the
		// next byte that needs a look.
		for i+8 <= len(b) {
			k := stringStop(binary.LittleEndian.Uint64(b[i:]))
			i += k
			if k < 8 {
				break
			}
		}
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i++; i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func vLiteral(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// vNumberEnd returns the index past the number at b[i], or -1: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func vNumberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = vDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := vDigits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := vDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func vDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// stringStop is the index of the first of the eight bytes of w (little-endian) that ends or
// interrupts a string's plain text: a '"', a '\\' or a control byte; 8 when there is none. Each
// test below marks the bytes it matches in their high bit; a borrow can mark a byte wrongly, but
// only one above a byte that was rightly marked, so the lowest mark is exact.
func stringStop(w uint64) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, e := w^(ones*'"'), w^(ones*'\\')
	m := ((q - ones) &^ q) | ((e - ones) &^ e) | ((w - ones*0x20) &^ w)
	return bits.TrailingZeros64(m&highs) / 8
}

package acp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// This file holds a tiny reader for JSON text that has already passed json.Valid. Decoding with
// it instead of encoding/json struct tags lets the decoders tell a missing member from a null
// one, match keys exactly (encoding/json folds case, so "SessionID" would pass for "sessionId"),
// name the exact member that has the wrong type, and hand out sub-slices of one owned copy
// instead of copying every json.RawMessage field again. The stdio proxy (internal/acpproxy),
// which looks at every frame on the forwarding path and cannot afford encoding/json there, uses
// its exported functions; on anything but valid JSON they stop early rather than misread.

// maxDepth mirrors encoding/json's nesting limit so a too-deep document gets a clear message.
const maxDepth = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// TrimSpace trims JSON whitespace only; bytes.TrimSpace would also eat Unicode spaces.
func TrimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] == '"'. Short strings (keys,
// enum values) are walked byte by byte; past 32 bytes it switches to bytes.IndexByte so long
// base64 payloads are skipped at memchr speed.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for stop := min(len(b), j+32); j < stop; j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	for j < len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return len(b)
}

// valueEnd returns the index just past the value starting at b[i]. It is iterative, so nesting
// depth costs no stack.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		return j
	}
}

// nestingDepth reports the deepest nesting of b; used only to explain a json.Valid failure.
func nestingDepth(b []byte) int {
	depth, deepest := 0, 0
	for j := 0; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = stringEnd(b, j) - 1
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// objIter walks the members of a valid JSON object.
type objIter struct {
	b  []byte
	i  int
	sp *spans // nil: nothing remembered
}

func newObjIter(obj []byte) objIter {
	return objIter{b: obj, i: skipSpace(obj, 0) + 1}
}

// next returns the next member; key is unescaped only when it holds escapes.
func (it *objIter) next() (key, val []byte, ok bool) {
	it.i = skipSpace(it.b, it.i)
	if it.i >= len(it.b) || it.b[it.i] == '}' {
		return nil, nil, false
	}
	if it.b[it.i] == ',' {
		it.i = skipSpace(it.b, it.i+1)
	}
	ks := it.i
	if ks >= len(it.b) || it.b[ks] != '"' {
		return nil, nil, false // not valid JSON after all; stop rather than misread
	}
	ke := stringEnd(it.b, ks)
	if ke-ks < 2 {
		return nil, nil, false
	}
	key = it.b[ks+1 : ke-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		var s string
		if json.Unmarshal(it.b[ks:ke], &s) == nil {
			key = []byte(s)
		}
	}
	it.i = skipSpace(it.b, ke)
	if it.i >= len(it.b) || it.b[it.i] != ':' {
		return nil, nil, false
	}
	it.i = skipSpace(it.b, it.i+1)
	vs := it.i
	if vs >= len(it.b) {
		return nil, nil, false
	}
	it.i = it.sp.valueEnd(it.b, vs)
	if it.i == vs {
		return nil, nil, false
	}
	return key, it.b[vs:it.i], true
}

// ArrayIter walks the elements of a valid JSON array.
type ArrayIter struct {
	b  []byte
	i  int
	sp *spans // nil: nothing remembered
}

// NewArrayIter starts walking the array arr.
func NewArrayIter(arr []byte) ArrayIter {
	return ArrayIter{b: arr, i: skipSpace(arr, 0) + 1}
}

// Next returns the next element; ok is false after the last.
func (it *ArrayIter) Next() (el []byte, ok bool) {
	it.i = skipSpace(it.b, it.i)
	if it.i >= len(it.b) || it.b[it.i] == ']' {
		return nil, false
	}
	if it.b[it.i] == ',' {
		it.i = skipSpace(it.b, it.i+1)
	}
	vs := it.i
	if vs >= len(it.b) {
		return nil, false
	}
	it.i = it.sp.valueEnd(it.b, vs)
	if it.i == vs {
		return nil, false // a stray delimiter: not valid JSON after all
	}
	return it.b[vs:it.i], true
}

// countElems counts an array's elements so slices can be sized once.
func countElems(arr []byte) int {
	n := 0
	for it := NewArrayIter(arr); ; n++ {
		if _, ok := it.Next(); !ok {
			return n
		}
	}
}

// Lookup fills out[i] with the value of member keys[i] (nil when absent). A repeated key keeps
// its last value, as encoding/json does.
func Lookup(obj []byte, out [][]byte, keys ...string) {
	lookupIter(newObjIter(obj), out, keys)
}

func lookupIter(it objIter, out [][]byte, keys []string) {
	for {
		k, v, ok := it.next()
		if !ok {
			return
		}
		for i, want := range keys {
			if string(k) == want {
				out[i] = v
				break
			}
		}
	}
}

// jsonType names the JSON type of a value for error messages.
func jsonType(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// IsObject reports whether the value v starts as an object.
func IsObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// IsArray reports whether the value v starts as an array.
func IsArray(v []byte) bool { return len(v) > 0 && v[0] == '[' }

func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// IsNull reports whether the value v is null.
func IsNull(v []byte) bool   { return len(v) > 0 && v[0] == 'n' }
func isNumber(v []byte) bool { return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') }

// Unquote decodes a JSON string value. Values without escapes, the common case, cost one
// allocation, or none when they are one of the protocol's fixed words.
func Unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		if w, ok := internWord(s); ok {
			return w, true
		}
		return string(s), true
	}
	var out string
	if json.Unmarshal(v, &out) != nil {
		return "", false
	}
	return out, true
}

// describe quotes a short rendering of a value for messages, so a megabyte of base64 never ends
// up inside a warning.
func describe(v []byte) string {
	const limit = 40
	if !isString(v) {
		if len(v) > limit || IsObject(v) || IsArray(v) {
			return jsonType(v)
		}
		return string(v)
	}
	s, _ := Unquote(v)
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// Find is Lookup that stops as soon as every key has been seen (the first occurrence counts),
// and returns the last object or array it needs open-ended, running to the end of obj: the
// caller descends into it, and walking it to its end first would be wasted. The proxy's tap uses
// it to find a frame's method and params without reading a megabyte of tool output behind them.
func Find(obj []byte, out [][]byte, keys ...string) {
	left := len(keys)
	i := skipSpace(obj, 0) + 1
	for left > 0 {
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		ke := stringEnd(obj, i)
		if ke-i < 2 {
			return
		}
		key := obj[i+1 : ke-1]
		i = skipSpace(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		vs := skipSpace(obj, i+1)
		if vs >= len(obj) {
			return
		}
		k := -1
		for j, want := range keys {
			if out[j] == nil && string(key) == want {
				k = j
				break
			}
		}
		if k >= 0 {
			left--
			if left == 0 && (obj[vs] == '{' || obj[vs] == '[') {
				out[k] = obj[vs:]
				return
			}
		}
		ve := valueEnd(obj, vs)
		if ve == vs {
			return
		}
		if k >= 0 {
			out[k] = obj[vs:ve]
		}
		i = ve
	}
}

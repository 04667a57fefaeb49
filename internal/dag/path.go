package dag

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// StateRoot is how every state reference starts; the dagger (U+2020) keeps
// references apart from ordinary strings an agent might pass.
const StateRoot = "†state"

// Path is a canonical state path such as "†state.user.emails[0]". Index
// segments are normalised (no leading zeros) so that equal paths compare
// equal as strings.
type Path string

// maxIndexDigits keeps index segments inside int range on every platform.
const maxIndexDigits = 9

// IsReference reports whether s claims to be a state reference. Anything
// that starts with StateRoot does, so that typos surface as malformed paths
// instead of silently becoming literal strings.
func IsReference(s string) bool { return strings.HasPrefix(s, StateRoot) }

// ParsePath checks s against the path grammar
//
//	†state ( "." ident | "[" digits "]" )*
//
// where ident is one or more letters, digits, "_" or "-", and returns the
// canonical form.
func ParsePath(s string) (Path, error) {
	if !IsReference(s) {
		return "", errors.New("does not start with " + StateRoot)
	}
	rest := s[len(StateRoot):]
	if rest == "" {
		return Path(StateRoot), nil
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(StateRoot)
	for rest != "" {
		switch rest[0] {
		case '.':
			n := identLen(rest[1:])
			if n == 0 {
				return "", errors.New("empty or invalid name after \".\" (names use letters, digits, \"_\" and \"-\")")
			}
			b.WriteString(rest[:1+n])
			rest = rest[1+n:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return "", errors.New("\"[\" without a closing \"]\"")
			}
			digits := rest[1:end]
			if digits == "" || len(digits) > maxIndexDigits || strings.TrimLeft(digits, "0123456789") != "" {
				return "", errors.New("index " + strconv.Quote(rest[:end+1]) + " is not a non-negative integer")
			}
			idx, _ := strconv.Atoi(digits)
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(idx))
			b.WriteByte(']')
			rest = rest[end+1:]
		default:
			r, _ := utf8.DecodeRuneInString(rest)
			return "", errors.New("unexpected " + strconv.QuoteRune(r) + " (segments start with \".\" or \"[\")")
		}
	}
	return Path(b.String()), nil
}

func identLen(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if r != '_' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		n += size
	}
	return n
}

// Contains reports whether q is p or lies below p. The boundary check keeps
// "†state.ab" from counting as inside "†state.a".
func (p Path) Contains(q Path) bool {
	if !strings.HasPrefix(string(q), string(p)) {
		return false
	}
	if len(q) == len(p) {
		return true
	}
	c := q[len(p)]
	return c == '.' || c == '['
}

// Overlaps reports whether reading one path can observe a write to the
// other: they are equal or one is an ancestor of the other.
func (p Path) Overlaps(q Path) bool { return p.Contains(q) || q.Contains(p) }

// segment is one step of a path: an object key or an array index.
type segment struct {
	key     string
	index   int
	isIndex bool
}

// segments splits a canonical path; it trusts the grammar ParsePath enforced.
func (p Path) segments() []segment {
	rest := string(p)[len(StateRoot):]
	var out []segment
	for rest != "" {
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			idx, _ := strconv.Atoi(rest[1:end])
			out = append(out, segment{index: idx, isIndex: true})
			rest = rest[end+1:]
			continue
		}
		rest = rest[1:]
		n := strings.IndexAny(rest, ".[")
		if n < 0 {
			n = len(rest)
		}
		out = append(out, segment{key: rest[:n]})
		rest = rest[n:]
	}
	return out
}

// ancestors calls fn for every proper ancestor of p, nearest first, ending
// with the root; edges need them because writing "a" also produces "a.b".
func (p Path) ancestors(fn func(Path)) {
	s := string(p)
	for i := len(s) - 1; i > len(StateRoot); i-- {
		if s[i] == '.' || s[i] == '[' {
			fn(Path(s[:i]))
		}
	}
	if len(s) > len(StateRoot) {
		fn(Path(StateRoot))
	}
}

// lookup reports whether the path exists in a decoded JSON value.
func (p Path) lookup(state any) bool {
	_, ok := p.value(state)
	return ok
}

// value walks a decoded JSON value (as produced by encoding/json into any)
// along the path.
func (p Path) value(state any) (any, bool) {
	cur := state
	for _, seg := range p.segments() {
		if seg.isIndex {
			arr, ok := cur.([]any)
			if !ok || seg.index >= len(arr) {
				return nil, false
			}
			cur = arr[seg.index]
			continue
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[seg.key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

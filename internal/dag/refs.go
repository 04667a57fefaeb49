package dag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// frame is one open object or array while scanning an argument value.
type frame struct {
	array   bool
	wantKey bool
	key     string
	idx     int
}

// scanRefs finds every whole string value in a that starts with StateRoot.
// It streams tokens instead of decoding into maps so that references keep
// document order, and it enforces MaxDepth itself.
func (p *Plan) scanRefs(c *Call, a Arg) error {
	v := bytes.TrimSpace(a.Value)
	if len(v) == 0 {
		return nil
	}
	// Scalars are the common case; skip the tokenizer for them.
	switch v[0] {
	case '"':
		if mayHoldRef(v) {
			var s string
			if err := json.Unmarshal(v, &s); err == nil && IsReference(s) {
				p.addRef(c, s, a.Name)
			}
		}
		return nil
	case '{', '[':
	default:
		return nil
	}
	if !mayHoldRef(v) && maxNesting(v) <= MaxDepth {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	stack := make([]frame, 0, 8)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s, argument %q: %v", ErrInvalid, callName(c), a.Name, err)
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if len(stack) >= MaxDepth {
					return fmt.Errorf("%w: %s, argument %q is nested deeper than %d levels", ErrInvalid, callName(c), a.Name, MaxDepth)
				}
				stack = append(stack, frame{array: t == '[', wantKey: t == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = t, false
				continue
			}
			if IsReference(t) {
				p.addRef(c, t, location(a.Name, stack))
			}
		}
		// A value just ended: advance the enclosing container.
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].idx++
			} else {
				stack[n-1].wantKey = true
			}
		}
	}
}

// mayHoldRef is a cheap filter before decoding; the dagger may also arrive
// JSON-escaped.
func mayHoldRef(v []byte) bool {
	return bytes.Contains(v, []byte(StateRoot)) || bytes.Contains(v, []byte(`\u2020`))
}

// maxNesting returns the deepest bracket nesting in v, ignoring brackets
// inside strings.
func maxNesting(v []byte) int {
	depth, deepest, inStr, esc := 0, 0, false, false
	for _, b := range v {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if b == '\\' {
				esc = true
			} else if b == '"' {
				inStr = false
			}
		case b == '"':
			inStr = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}

// addRef records a well-formed reference or a malformed-path problem.
func (p *Plan) addRef(c *Call, s, at string) {
	path, err := ParsePath(s)
	if err != nil {
		p.problem(Problem{Kind: ProblemMalformedPath, Calls: []string{c.ID}, Paths: []string{s},
			Message: fmt.Sprintf("%s: reference %q at %s is malformed: %v", callName(c), s, at, err)})
		return
	}
	c.Reads = append(c.Reads, Ref{Path: path, At: at})
}

// location renders where a reference sits, JavaScript style, so a person can
// find it in the arguments.
func location(arg string, stack []frame) string {
	var b strings.Builder
	b.WriteString(arg)
	for _, f := range stack {
		if f.array {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.idx))
			b.WriteByte(']')
			continue
		}
		if identLen(f.key) == len(f.key) && f.key != "" {
			b.WriteByte('.')
			b.WriteString(f.key)
			continue
		}
		b.WriteByte('[')
		b.WriteString(strconv.Quote(f.key))
		b.WriteByte(']')
	}
	return b.String()
}

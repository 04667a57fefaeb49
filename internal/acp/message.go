package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// DecodeLine decodes one NDJSON line: a JSON object is one message, a non-empty JSON array is a
// batch (v2 draft), and a recorded-transcript envelope {"dir":"c2a"|"a2c","ts":…,"msg":…} yields
// its message(s) with Dir and Time set. Each message's Raw holds its exact bytes (for an envelope,
// the bytes of msg, not of the record); all fields point into one private copy of line, so the
// caller may reuse line afterwards.
//
// Errors are *LineError with CodeParseError (not JSON, invalid UTF-8) or CodeInvalidRequest (not
// a JSON-RPC 2.0 message; the message names the offending member). In a batch the good elements
// are still returned alongside the error for the first bad one, so nothing valid is lost.
func DecodeLine(line []byte) ([]Message, error) {
	b := TrimSpace(line)
	if len(b) == 0 {
		return nil, parseErr("empty line")
	}
	if !utf8.Valid(b) {
		return nil, parseErr(fmt.Sprintf("not valid UTF-8 (first bad byte at offset %d)", firstBadUTF8(b)))
	}
	// The copy is checked, so that checking it notes where its containers end.
	owned := bytes.Clone(b)
	sp := newSpans(owned)
	if !valid(owned, sp) {
		return nil, parseErr(invalidJSONMessage(b))
	}
	if sp != nil {
		sp.frozen = true
	}
	msgs, le := decodeTop(owned, nil, envelope{}, sp)
	for i := range msgs {
		msgs[i].checked, msgs[i].spans = msgs[i].Params, sp
	}
	if le != nil {
		return msgs, le
	}
	return msgs, nil
}

// envelope is what a transcript record adds to the messages it wraps.
type envelope struct {
	dir Direction
	ts  time.Time
}

func parseErr(msg string) *LineError { return &LineError{Code: CodeParseError, Message: msg} }

func invalidErr(format string, args ...any) *LineError {
	return &LineError{Code: CodeInvalidRequest, Message: fmt.Sprintf(format, args...)}
}

func firstBadUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// invalidJSONMessage explains why a line is not JSON; it runs only on the error path.
func invalidJSONMessage(b []byte) string {
	if d := nestingDepth(b); d > maxDepth {
		return fmt.Sprintf("not valid JSON: nested %d levels deep, over the limit of %d", d, maxDepth)
	}
	var v json.RawMessage
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON: %v (at byte %d)", se, se.Offset)
	}
	if err != nil {
		return "not valid JSON: " + err.Error()
	}
	return "not valid JSON"
}

// decodeTop decodes a line's top-level value (or an envelope's msg) and appends to dst.
func decodeTop(b []byte, dst []Message, env envelope, sp *spans) ([]Message, *LineError) {
	switch b[0] {
	case '{':
		return decodeObject(b, dst, env, sp)
	case '[':
		n := sp.countElems(b)
		if n == 0 {
			return dst, invalidErr("batch is empty")
		}
		if dst == nil {
			dst = make([]Message, 0, n)
		}
		var first *LineError
		idx := 0
		for it := sp.arrayIter(b); ; idx++ {
			el, ok := it.Next()
			if !ok {
				break
			}
			var le *LineError
			if el[0] != '{' {
				le = invalidErr("must be a JSON-RPC message object, not %s", jsonType(el))
			} else {
				dst, le = decodeMessage(el, dst, env, sp)
			}
			if le != nil && first == nil {
				le.Message = fmt.Sprintf("batch element %d: %s", idx, le.Message)
				first = le
			}
		}
		return dst, first
	default:
		return dst, invalidErr("a line must hold a JSON object or array, not %s", jsonType(b))
	}
}

// decodeObject tells a transcript envelope from a message: an envelope has "msg" and no
// "jsonrpc".
func decodeObject(b []byte, dst []Message, env envelope, sp *spans) ([]Message, *LineError) {
	// One pass over the object finds the members of both: a message's params are most of a
	// line, and every pass over the object skips over them.
	var all [messageMembers + 3][]byte
	sp.lookup(b, all[:], "jsonrpc", "id", "method", "params", "result", "error", "msg", "dir", "ts")
	if all[messageMembers] == nil || all[0] != nil {
		return messageOf(b, [messageMembers][]byte(all[:messageMembers]), dst, env)
	}
	msg, dir, ts := all[messageMembers], all[messageMembers+1], all[messageMembers+2]
	if dir != nil {
		s, _ := Unquote(dir)
		switch Direction(s) {
		case ClientToAgent, AgentToClient:
			env.dir = Direction(s)
		default:
			return dst, invalidErr(`"dir" must be "c2a" or "a2c", not %s`, describe(dir))
		}
	}
	if ts != nil {
		s, ok := Unquote(ts)
		t, err := time.Parse(time.RFC3339Nano, s)
		if !ok || err != nil {
			return dst, invalidErr(`"ts" must be an RFC 3339 time, not %s`, describe(ts))
		}
		env.ts = t
	}
	if !IsObject(msg) && !IsArray(msg) {
		return dst, invalidErr(`"msg" must be a JSON-RPC message or batch, not %s`, jsonType(msg))
	}
	dst, le := decodeTop(msg, dst, env, sp)
	if le != nil {
		le.Message = "msg: " + le.Message
	}
	return dst, le
}

// decodeMessage checks the JSON-RPC 2.0 shape of one object and appends it to dst.
func decodeMessage(b []byte, dst []Message, env envelope, sp *spans) ([]Message, *LineError) {
	var f [messageMembers][]byte
	sp.lookup(b, f[:], "jsonrpc", "id", "method", "params", "result", "error")
	return messageOf(b, f, dst, env)
}

// messageMembers is how many members of a message messageOf looks at.
const messageMembers = 6

// messageOf is decodeMessage once object b's members jsonrpc, id, method, params, result and
// error are found (f, in that order; nil when missing).
func messageOf(b []byte, f [messageMembers][]byte, dst []Message, env envelope) ([]Message, *LineError) {
	version, id, method, params, result, rpcErr := f[0], f[1], f[2], f[3], f[4], f[5]

	if version == nil {
		return dst, invalidErr(`"jsonrpc" is missing; it must be "2.0"`)
	}
	if v, _ := Unquote(version); v != "2.0" {
		return dst, invalidErr(`"jsonrpc" must be "2.0", not %s`, describe(version))
	}
	m := Message{Raw: b, Dir: env.dir, Time: env.ts}
	if id != nil {
		if !isString(id) && !isNumber(id) && !IsNull(id) {
			return dst, invalidErr(`"id" must be a number or string, not %s`, jsonType(id))
		}
		m.ID = id
	}
	if params != nil && !IsObject(params) && !IsArray(params) && !IsNull(params) {
		return dst, invalidErr(`"params" must be an object or array, not %s`, jsonType(params))
	}
	m.Params = params

	if method != nil {
		name, ok := Unquote(method)
		switch {
		case !ok:
			return dst, invalidErr(`"method" must be a string, not %s`, jsonType(method))
		case name == "":
			return dst, invalidErr(`"method" must not be empty`)
		case result != nil || rpcErr != nil:
			return dst, invalidErr(`a request or notification cannot have "result" or "error"`)
		case IsNull(id):
			return dst, invalidErr(`"id" must be a number or string; null is allowed only in error responses`)
		}
		m.Method = name
		return append(dst, m), nil
	}

	switch {
	case id == nil && result == nil && rpcErr == nil:
		return dst, invalidErr(`not a JSON-RPC message: it has no "method", "result" or "error"`)
	case id == nil:
		return dst, invalidErr(`response is missing "id"`)
	case result != nil && rpcErr != nil:
		return dst, invalidErr(`response has both "result" and "error"; it must have exactly one`)
	case result == nil && rpcErr == nil:
		return dst, invalidErr(`response has neither "result" nor "error"; it must have exactly one`)
	case result != nil && IsNull(id):
		return dst, invalidErr(`"id" must be a number or string; null is allowed only in error responses`)
	}
	m.Params = nil // meaningless on a response; Raw still has it
	if result != nil {
		m.Result = result
		return append(dst, m), nil
	}
	e, le := decodeRPCError(rpcErr)
	if le != nil {
		return dst, le
	}
	m.Error = e
	return append(dst, m), nil
}

func decodeRPCError(v []byte) (*RPCError, *LineError) {
	if !IsObject(v) {
		return nil, invalidErr(`"error" must be an object, not %s`, jsonType(v))
	}
	var f [3][]byte
	Lookup(v, f[:], "code", "message", "data")
	code, err := strconv.Atoi(string(f[0]))
	if err != nil {
		if f[0] == nil {
			return nil, invalidErr(`"error.code" is missing`)
		}
		return nil, invalidErr(`"error.code" must be an integer, not %s`, describe(f[0]))
	}
	msg, ok := Unquote(f[1])
	if !ok {
		if f[1] == nil {
			return nil, invalidErr(`"error.message" is missing`)
		}
		return nil, invalidErr(`"error.message" must be a string, not %s`, jsonType(f[1]))
	}
	return &RPCError{Code: code, Message: msg, Data: f[2]}, nil
}

package hookkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Payload is a hook's event decoded as one JSON object: its members by key, and the payload
// itself (trimmed of surrounding space). Each agent reads the members it knows; a member of an
// unexpected type reads as empty rather than failing the event, because a hook must never break
// the agent over one odd field.
type Payload struct {
	Members map[string]json.RawMessage
	Raw     []byte
}

// DecodePayload reads one hook payload of at most max bytes. It fails only when the payload is
// too large, empty, not UTF-8 or not a JSON object; the error says which, in words an agent's
// own error type prefixes with whose payload it was.
func DecodePayload(b []byte, max int) (Payload, error) {
	if len(b) > max {
		return Payload{}, fmt.Errorf("over the %d MiB limit", max>>20)
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return Payload{}, errors.New("empty")
	}
	if !utf8.Valid(t) {
		return Payload{}, errors.New("not valid UTF-8")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return Payload{}, errors.New("not a JSON object: " + err.Error())
	}
	if m == nil {
		return Payload{}, errors.New("must be a JSON object, not null")
	}
	return Payload{Members: m, Raw: t}, nil
}

// String is the member k when it is a JSON string; "" otherwise.
func (p Payload) String(k string) string { return StringOf(p.Members[k]) }

// Value is the member k trimmed of space; nil when it is missing or null.
func (p Payload) Value(k string) json.RawMessage {
	v := bytes.TrimSpace(p.Members[k])
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return nil
	}
	return v
}

// StringOf is v when it is a JSON string; "" otherwise.
func StringOf(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

package settingsfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Member is one key of a JSON object, its value kept as written.
type Member struct {
	Key   string
	Value json.RawMessage

	// raw is the key as written (with its escapes), so a key plandash did not touch is
	// written back byte for byte; empty for a member made in code.
	raw []byte
}

// Object is a JSON object that keeps its members' order and their bytes, so rewriting a user's
// settings file changes only what plandash owns.
//
// Duplicate keys are kept as written until plandash sets that key. The agents' JSON readers
// (JavaScript's JSON.parse, Go's encoding/json, serde_json's maps) all read the last of them,
// so Get returns the last, and Set replaces the last where it stands and drops the earlier
// ones, which no agent ever saw.
type Object []Member

// ParseObject reads a JSON object, keeping its members' order, their bytes and any duplicate
// keys. Anything but one JSON object (an array, null, data after the object) is an error.
func ParseObject(b []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := Object{}
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		raw := bytes.TrimLeft(b[start:dec.InputOffset()], " \t\r\n,")
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, Member{Key: key, Value: v, raw: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return o, nil
}

// Get returns the value of key; with duplicates, the last (see Object).
func (o Object) Get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

// Set gives key the value v: the last member of that name gets it where it stands and earlier
// duplicates are dropped (see Object); a new key is added at the end.
func (o *Object) Set(key string, v json.RawMessage) {
	last := -1
	for i, m := range *o {
		if m.Key == key {
			last = i
		}
	}
	if last < 0 {
		*o = append(*o, Member{Key: key, Value: v})
		return
	}
	out := (*o)[:0]
	for i, m := range *o {
		switch {
		case i == last:
			m.Value = v
		case m.Key == key:
			continue
		}
		out = append(out, m)
	}
	*o = out
}

// Del removes every member named key.
func (o *Object) Del(key string) {
	out := (*o)[:0]
	for _, m := range *o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	*o = out
}

// Marshal writes the object compactly, each member's key and value as written; Indent formats
// a whole file once.
func (o Object) Marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.key())
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// key is the member's key as JSON: as written when it was read (and not renamed since), else
// quoted without escaping HTML characters (a settings file is no web page).
func (m Member) key() []byte {
	var k string
	if len(m.raw) > 0 && json.Unmarshal(m.raw, &k) == nil && k == m.Key {
		return m.raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m.Key) // a Go string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// ParseArray reads a JSON array's elements, each kept as written. Anything but one JSON array
// (an object, null, data after it) is an error.
func ParseArray(b []byte) ([]json.RawMessage, error) {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		return nil, errors.New("not a JSON array")
	}
	a := []json.RawMessage{}
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, err
	}
	return a, nil
}

// MarshalArray writes the elements as a compact JSON array, each as given.
func MarshalArray(a []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// Compact is b without insignificant space, for telling whether two values are the same; b
// itself when it is not valid JSON.
func Compact(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// IsNull reports whether a value is JSON null.
func IsNull(b json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(b), []byte("null")) }

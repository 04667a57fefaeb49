package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// member is one key of a JSON object, its value kept as written.
type member struct {
	Key   string
	Value json.RawMessage
}

// object is a JSON object that keeps its members' order, so rewriting a user's settings.json
// changes only what plandash owns.
type object []member

// parseObject reads a JSON object, keeping member order (and duplicate keys, as written).
func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return o, nil
}

// get returns the value of key; with duplicates, the last, as encoding/json reads it.
func (o object) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

// set replaces key's value where it stands (dropping duplicates) or appends it.
func (o *object) set(key string, v json.RawMessage) {
	done := false
	out := (*o)[:0]
	for _, m := range *o {
		if m.Key == key {
			if done {
				continue
			}
			m.Value, done = v, true
		}
		out = append(out, m)
	}
	if !done {
		out = append(out, member{key, v})
	}
	*o = out
}

// del removes key.
func (o *object) del(key string) {
	out := (*o)[:0]
	for _, m := range *o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	*o = out
}

// marshal writes the object compactly; the caller indents the whole file once.
func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// parseArray reads a JSON array's elements as written.
func parseArray(b json.RawMessage) ([]json.RawMessage, bool) {
	var a []json.RawMessage
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &a) != nil {
		return nil, false
	}
	return a, true
}

func marshalArray(a []json.RawMessage) json.RawMessage {
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

func compact(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// syntaxError says where settings.json is broken, as an editor counts: line and column.
func syntaxError(path string, b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %v", path, err)
	}
	off := min(int(se.Offset), len(b))
	line, col := 1, 1
	for _, c := range b[:max(off-1, 0)] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%s is not valid JSON (line %d, column %d: %v); it was left untouched", path, line, col, se)
}

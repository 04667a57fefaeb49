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

	// As read by ParseObject (src): raw is the key as written, with its escapes; pre the space
	// before it; colon what lies between it and the value (space, ':', space); post the space
	// after the value, up to the next ','; tail the object's space before its '}' (on every
	// member, so deleting one keeps it); first marks the first member. fresh marks a value
	// given by Set, laid out where it goes.
	raw, pre, colon, post, tail []byte
	src, first, fresh           bool
}

// Object is a JSON object that keeps its members' order and their bytes, and the space
// between them, so rewriting a user's settings file changes only what plandash owns: an object
// read and written back unchanged is the same bytes (an empty one is written {}).
//
// Duplicate keys are kept as written until plandash sets that key. The agents' JSON readers
// (JavaScript's JSON.parse, Go's encoding/json, serde_json's maps) all read the last of them,
// so Get returns the last, and Set replaces the last where it stands and drops the earlier
// ones, which no agent ever saw.
type Object []Member

// ParseObject reads a JSON object, keeping its members' order, their bytes, the space between
// them and any duplicate keys. Anything but one JSON object (an array, null, data after the
// object) is an error.
func ParseObject(b []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := Object{}
	prev := dec.InputOffset() // the end of the last token: '{' or a value
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		keyEnd := dec.InputOffset()
		// Between the last token and the key's end: space, a ',' after the first member,
		// space, and the key, which is the only part with a '"'.
		gap := b[prev:keyEnd]
		q := bytes.IndexByte(gap, '"')
		post, pre := split(gap[:q])
		if len(o) > 0 {
			o[len(o)-1].post = post
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		end := dec.InputOffset()
		o = append(o, Member{Key: key, Value: v, raw: gap[q:], pre: pre, colon: b[keyEnd : end-int64(len(v))], src: true, first: len(o) == 0})
		prev = end
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	tail := b[prev : dec.InputOffset()-1]
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	for i := range o {
		o[i].tail = tail
	}
	return o, nil
}

// split cuts the space between two members (or elements) at its ',': what ends the one before
// and what starts the next. Without a ',' (the first), all of it starts the next.
func split(gap []byte) (post, pre []byte) {
	if c := bytes.IndexByte(gap, ','); c >= 0 {
		return gap[:c], gap[c+1:]
	}
	return nil, gap
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
// duplicates are dropped (see Object); a new key is added at the end. Marshal lays v out to
// match the members around it.
func (o *Object) Set(key string, v json.RawMessage) { o.set(key, v, true) }

// setKeep is Set for a value already laid out where it goes (an Object read from the same
// place and changed), which Marshal writes as it is.
func (o *Object) setKeep(key string, v json.RawMessage) { o.set(key, v, false) }

func (o *Object) set(key string, v json.RawMessage, fresh bool) {
	last := -1
	for i, m := range *o {
		if m.Key == key {
			last = i
		}
	}
	if last < 0 {
		*o = append(*o, Member{Key: key, Value: v, fresh: true})
		return
	}
	out := (*o)[:0]
	for i, m := range *o {
		switch {
		case i == last:
			m.Value, m.fresh = v, fresh
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

// Marshal writes the object. Members read by ParseObject keep their bytes and the space
// around them; a new member takes the layout of the one before it, and a new value (see Set)
// is indented to match. An object made in code is written compactly: Indent formats a new file.
func (o Object) Marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	var tail []byte
	lay := -1 // the member whose layout a new one takes
	for i, m := range o {
		if m.src {
			tail = m.tail
			if lay < 0 {
				lay = i
			}
		}
	}
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if m.src {
			lay = i
		}
		pre, colon := []byte(nil), []byte(":")
		if lay >= 0 {
			pre, colon = o[lay].pre, o[lay].colon
			if !m.src && o[lay].first && len(pre) == 0 && bytes.HasSuffix(colon, []byte(" ")) {
				pre = []byte(" ") // after {"a": 1 comes , "b": 2
			}
		}
		if i == 0 && !m.first && bytes.IndexByte(pre, '\n') < 0 {
			pre = nil // `{"a": 1, "b": 2}` without "a" is `{"b": 2}`
		}
		b.Write(pre)
		b.Write(m.key())
		b.Write(colon)
		v := m.Value
		if m.fresh && lay >= 0 {
			v = layout(v, pre, tail)
		}
		b.Write(v)
		if i < len(o)-1 {
			b.Write(m.post)
		}
	}
	b.Write(tail)
	b.WriteByte('}')
	return b.Bytes()
}

// layout indents a new value v to sit after pre (the space before its key or element) in a
// container that ends with tail: one indent deeper than the line the container closes on, in
// the unit and line ending the file uses. In a container on one line v stays as it is.
func layout(v, pre, tail []byte) []byte {
	nl := bytes.LastIndexByte(pre, '\n')
	if nl < 0 {
		return v
	}
	indent := pre[nl+1:]
	unit := indent
	if t := bytes.LastIndexByte(tail, '\n'); t >= 0 && bytes.HasPrefix(indent, tail[t+1:]) && len(indent) > len(tail)-t-1 {
		unit = indent[len(tail)-t-1:]
	}
	if len(unit) == 0 {
		unit = []byte("  ")
	}
	var buf bytes.Buffer
	if json.Indent(&buf, v, string(indent), string(unit)) != nil {
		return v
	}
	if nl > 0 && pre[nl-1] == '\r' {
		// A file with CRLF lines gets them in what plandash adds too (a JSON string holds no
		// raw newline, so every '\n' here is one Indent wrote).
		return bytes.ReplaceAll(buf.Bytes(), []byte("\n"), []byte("\r\n"))
	}
	return buf.Bytes()
}

// key is the member's key as JSON: as written when it was read (and not renamed since), else
// quoted without escaping HTML characters (a settings file is no web page).
func (m Member) key() []byte {
	var k string
	if m.src && json.Unmarshal(m.raw, &k) == nil && k == m.Key {
		return m.raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m.Key) // a Go string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
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

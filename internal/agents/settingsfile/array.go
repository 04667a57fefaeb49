package settingsfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ParseArray reads a JSON array's elements, each kept as written. Anything but one JSON array
// (an object, null, data after it) is an error.
func ParseArray(b []byte) ([]json.RawMessage, error) {
	a, err := parseArray(b)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(a.elems))
	for i, e := range a.elems {
		out[i] = e.v
	}
	return out, nil
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

// array is a JSON array as read, with the space around its elements, as Object keeps it for
// members: an array read and written back unchanged is the same bytes.
type array struct {
	elems []elem
	tail  []byte // the space before ']'
}

// elem is one element: its value, the space before it and after it up to the next ','; src
// for one read, fresh for a value that is new where it stands (laid out to match).
type elem struct {
	v                 json.RawMessage
	pre, post         []byte
	src, first, fresh bool
}

func parseArray(b []byte) (array, error) {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		return array{}, errors.New("not a JSON array")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return array{}, err
	}
	var a array
	prev := dec.InputOffset()
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return array{}, err
		}
		end := dec.InputOffset()
		post, pre := split(b[prev : end-int64(len(v))])
		if len(a.elems) > 0 {
			a.elems[len(a.elems)-1].post = post
		}
		a.elems = append(a.elems, elem{v: v, pre: pre, src: true, first: len(a.elems) == 0})
		prev = end
	}
	if _, err := dec.Token(); err != nil {
		return array{}, err
	}
	a.tail = b[prev : dec.InputOffset()-1]
	if _, err := dec.Token(); err != io.EOF {
		return array{}, errors.New("data after the array")
	}
	return a, nil
}

// marshal writes the array as Object.Marshal writes an object: elements read keep their bytes
// and the space around them, a new one takes the layout of the one before it. An array without
// any element read is written compactly.
func (a array) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	lay := -1
	for i, e := range a.elems {
		if e.src && lay < 0 {
			lay = i
		}
	}
	tail := []byte(nil)
	if lay >= 0 {
		tail = a.tail
	}
	for i, e := range a.elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if e.src {
			lay = i
		}
		var pre []byte
		if lay >= 0 {
			pre = a.elems[lay].pre
		}
		if i == 0 && !e.first && bytes.IndexByte(pre, '\n') < 0 {
			pre = nil
		}
		b.Write(pre)
		v := e.v
		if e.fresh && lay >= 0 {
			v = layout(v, pre, tail)
		}
		b.Write(v)
		if i < len(a.elems)-1 {
			b.Write(e.post)
		}
	}
	b.Write(tail)
	b.WriteByte(']')
	return b.Bytes()
}

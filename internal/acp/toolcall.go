package acp

import (
	"encoding/json"
	"fmt"
)

// toolFields are a tool call's members, found either flattened in a session/update or inside a
// permission request's toolCall object.
type toolFields struct {
	id, title, kind, status, name, content, locations, rawInput, rawOutput, meta []byte
}

func toolFieldsOf(obj []byte) toolFields {
	var f [10][]byte
	Lookup(obj, f[:], "toolCallId", "title", "kind", "status", "name", "content", "locations",
		"rawInput", "rawOutput", "_meta")
	return toolFields{id: f[0], title: f[1], kind: f[2], status: f[3], name: f[4], content: f[5],
		locations: f[6], rawInput: f[7], rawOutput: f[8], meta: f[9]}
}

// toolCall decodes what is there; ok is false when there is no usable toolCallId, since such an
// update cannot be matched to any call.
func (d *decoder) toolCall(f toolFields, prefix string, create bool) (ToolCallUpdate, bool) {
	tc := ToolCallUpdate{
		Create:    create,
		Title:     d.optString(f.title, join(prefix, "title")),
		Kind:      d.optString(f.kind, join(prefix, "kind")),
		Status:    d.optString(f.status, join(prefix, "status")),
		Name:      d.optString(f.name, join(prefix, "name")),
		Content:   d.toolContent(f.content, join(prefix, "content")),
		RawInput:  rawOpt(f.rawInput),
		RawOutput: rawOpt(f.rawOutput),
		Meta:      rawOpt(f.meta),
	}
	if loc := rawOpt(f.locations); loc != nil {
		if IsArray(loc) {
			tc.Locations = loc
		} else {
			d.warn(join(prefix, "locations"), "must be an array, not "+jsonType(loc)+"; ignored")
		}
	}
	id, ok := Unquote(f.id)
	switch {
	case !ok:
		d.warn(join(prefix, "toolCallId"), notString(f.id)+"; the tool call cannot be tracked")
		return tc, false
	case id == "":
		d.warn(join(prefix, "toolCallId"), "must not be empty; the tool call cannot be tracked")
		return tc, false
	}
	tc.ToolCallID = id
	return tc, true
}

// isContentBlockType reports the ContentBlock types that may appear bare where a ToolCallContent
// is due.
func isContentBlockType(t string) bool {
	switch t {
	case "text", "image", "audio", "resource", "resource_link":
		return true
	}
	return false
}

// toolContent returns a tool call's content as a ToolCallContent array. The docs show bare
// content blocks ({"type":"text",…}) where the schema wants {"type":"content","content":{…}}
// (spec §12); those are wrapped so consumers see one shape. Content already in shape is returned
// as is, without a copy.
func (d *decoder) toolContent(v []byte, path string) json.RawMessage {
	switch {
	case v == nil || IsNull(v):
		return nil
	case IsObject(v):
		d.warn(path, "must be an array, not an object; treated as a list of one")
		el, ok := d.contentItem(v, path+"[0]")
		if !ok {
			return nil
		}
		return append(append([]byte{'['}, el...), ']')
	case !IsArray(v):
		d.warn(path, "must be an array, not "+jsonType(v)+"; ignored")
		return nil
	}
	// First pass: most content needs no change, and then no bytes are copied.
	clean := true
	for it := NewArrayIter(v); clean; {
		el, ok := it.Next()
		if !ok {
			break
		}
		clean = IsObject(el) && !isContentBlockType(typeOf(el))
	}
	if clean {
		return v
	}
	out := make([]byte, 0, len(v)+64)
	out = append(out, '[')
	i := 0
	for it := NewArrayIter(v); ; i++ {
		el, ok := it.Next()
		if !ok {
			break
		}
		item, ok := d.contentItem(el, fmt.Sprintf("%s[%d]", path, i))
		if !ok {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, item...)
	}
	return append(out, ']')
}

// contentItem returns one ToolCallContent, wrapping a bare content block; ok is false for an
// item that is not an object at all.
func (d *decoder) contentItem(el []byte, path string) ([]byte, bool) {
	if !IsObject(el) {
		d.warn(path, "must be an object, not "+jsonType(el)+"; dropped")
		return nil, false
	}
	if !isContentBlockType(typeOf(el)) {
		return el, true
	}
	const head = `{"type":"content","content":`
	w := make([]byte, 0, len(head)+len(el)+1)
	w = append(w, head...)
	w = append(w, el...)
	return append(w, '}'), true
}

// typeOf returns an object's "type" member if it is a string.
func typeOf(obj []byte) string {
	var f [1][]byte
	Lookup(obj, f[:], "type")
	s, _ := Unquote(f[0])
	return s
}

// chunk decodes a message chunk; nil (with a warning) when there is no content block to show.
func (d *decoder) chunk(content, messageID []byte) *ContentChunk {
	if !IsObject(content) {
		msg := "missing; chunk ignored"
		if content != nil {
			msg = "must be a content block object, not " + jsonType(content) + "; chunk ignored"
		}
		d.warn("update.content", msg)
		return nil
	}
	c := &ContentChunk{Content: content}
	if id := d.optString(messageID, "update.messageId"); id != nil {
		c.MessageID = *id
	}
	var f [2][]byte
	Lookup(content, f[:], "type", "text")
	if t, _ := Unquote(f[0]); t == "text" {
		c.Text, _ = Unquote(f[1])
	}
	return c
}

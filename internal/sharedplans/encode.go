package sharedplans

import (
	"strconv"

	"github.com/plandash/plandash/internal/jsontext"
)

// The plan encoder writes exactly what encoding/json writes for Plan (json.MarshalIndent with a
// two-space indent for files, json.Marshal for tool results), in one pass into a buffer of the
// exact size, where encoding/json needs a growing buffer and a second pass to indent a large
// plan. FuzzEncodePlan holds the two byte for byte.

// planField is one member of Plan's encoding, in struct order.
type planField struct {
	key       string // the quoted key
	str       string
	num       int
	isNum     bool
	omitEmpty bool
}

func planFields(p *Plan) [7]planField {
	return [7]planField{
		{key: `"name"`, str: p.Name},
		{key: `"title"`, str: p.Title, omitEmpty: true},
		{key: `"content"`, str: p.Content},
		{key: `"author"`, str: p.Author, omitEmpty: true},
		{key: `"status"`, str: p.Status, omitEmpty: true},
		{key: `"revision"`, num: p.Revision, isNum: true},
		{key: `"updatedAt"`, str: p.UpdatedAt},
	}
}

// appendPlan appends p as json.MarshalIndent(p, "", "  ") when indent is set, else as
// json.Marshal(p).
func appendPlan(dst []byte, p *Plan, indent bool) []byte {
	sep, colon := ",", ":"
	if indent {
		sep, colon = ",\n  ", ": "
	}
	dst = append(dst, '{')
	if indent {
		dst = append(dst, "\n  "...)
	}
	first := true
	for _, f := range planFields(p) {
		if f.omitEmpty && f.str == "" {
			continue
		}
		if !first {
			dst = append(dst, sep...)
		}
		first = false
		dst = append(dst, f.key...)
		dst = append(dst, colon...)
		if f.isNum {
			dst = strconv.AppendInt(dst, int64(f.num), 10)
		} else {
			dst = jsontext.AppendString(dst, f.str, jsontext.HTML)
		}
	}
	if indent {
		dst = append(dst, '\n')
	}
	return append(dst, '}')
}

// planLen is len(appendPlan(nil, p, indent)), so the buffer is allocated once.
func planLen(p *Plan, indent bool) int {
	sep, colon := 1, 1
	n := 2 // braces
	if indent {
		sep, colon = 4, 2
		n += 4 // "\n  " after the opening brace, "\n" before the closing one
	}
	fields := 0
	for _, f := range planFields(p) {
		if f.omitEmpty && f.str == "" {
			continue
		}
		fields++
		n += len(f.key) + colon
		if f.isNum {
			n += len(strconv.Itoa(f.num))
		} else {
			n += jsontext.Len(f.str, jsontext.HTML)
		}
	}
	return n + (fields-1)*sep
}

// encodePlan returns p's file (indent) or tool-result encoding in a buffer of the exact size.
func encodePlan(p *Plan, indent bool) []byte {
	return appendPlan(make([]byte, 0, planLen(p, indent)), p, indent)
}

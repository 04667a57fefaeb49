package delta

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// Every revision a batch stores is a delta, and encoding/json spent more on finding its way
// through a delta's map and slices by reflection (and on checking again raw values it had just
// written) than on the bytes. The appenders here write the same bytes directly;
// TestEncodersAgree and the diff tests hold them to encoding/json.

// encodeDelta is json.Marshal(d), for a delta whose raw values are json.Marshal's output, as
// diffPlans and diffFields over a plan's own JSON make them: compact and escaped, so encoding/json
// would copy them unchanged.
func encodeDelta(d delta) []byte {
	b := make([]byte, 0, 256)
	b = append(b, '{')
	sep := func() {
		if len(b) > 1 {
			b = append(b, ',')
		}
	}
	if len(d.Set) > 0 {
		sep()
		b = append(b, `"s":{`...)
		var one [1]string // most deltas set one member: sorting it needs no slice
		keys := one[:0]
		if len(d.Set) > 1 {
			keys = make([]string, 0, len(d.Set))
		}
		keys = slices.AppendSeq(keys, maps.Keys(d.Set))
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendRaw(b, d.Set[k])
		}
		b = append(b, '}')
	}
	if len(d.Del) > 0 {
		sep()
		b = append(b, `"d":[`...)
		for i, k := range d.Del {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
		}
		b = append(b, ']')
	}
	if len(d.Entries) > 0 {
		sep()
		b = append(b, `"e":[`...)
		for i, h := range d.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"a":`...)
			b = strconv.AppendInt(b, int64(h.At), 10)
			if h.Del != 0 {
				b = append(b, `,"n":`...)
				b = strconv.AppendInt(b, int64(h.Del), 10)
			}
			if len(h.Ins) > 0 {
				b = append(b, `,"i":[`...)
				for j, r := range h.Ins {
					if j > 0 {
						b = append(b, ',')
					}
					b = appendRaw(b, r)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendRaw appends a raw value as encoding/json writes one that is already compact and
// escaped: unchanged, and null when empty.
func appendRaw(b []byte, r json.RawMessage) []byte {
	if len(r) == 0 {
		return append(b, "null"...)
	}
	return append(b, r...)
}

// appendString appends s as a JSON string. Text of printable ASCII that encoding/json leaves
// alone (no quote, backslash, <, > or &) is copied; anything else goes through encoding/json,
// so its escapes stay encoding/json's own.
func appendString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return append(b, mustJSON(s)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// encodeEntry is json.Marshal(e).
func encodeEntry(e plans.Entry) json.RawMessage {
	return appendEntry(make([]byte, 0, len(e.Content)+len(e.Priority)+len(e.Status)+40), e)
}

// appendEntry appends json.Marshal(e). An entry with _meta (raw JSON as the agent sent it, which
// encoding/json compacts) goes through encoding/json.
func appendEntry(b []byte, e plans.Entry) []byte {
	if len(e.Meta) > 0 {
		return append(b, mustJSON(e)...)
	}
	b = append(b, `{"content":`...)
	b = appendString(b, e.Content)
	b = append(b, `,"priority":`...)
	b = appendString(b, e.Priority)
	b = append(b, `,"status":`...)
	b = appendString(b, e.Status)
	return append(b, '}')
}

// appendTime appends json.Marshal(t): time.Time's MarshalJSON is its AppendText quoted.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	return append(b, '"'), err
}

// encodeValue is json.Marshal(v) for the members diffPlans sets, with the common ones (text
// and times) written directly.
func encodeValue(v any) json.RawMessage {
	switch v := v.(type) {
	case string:
		return appendString(nil, v)
	case time.Time:
		// encoding/json writes MarshalJSON's quoted RFC 3339 text, which needs no escaping.
		if b, err := appendTime(make([]byte, 0, 40), v); err == nil {
			return b
		}
	}
	return mustJSON(v)
}

// EncodePlan is json.Marshal(p): the plan's stored JSON, as its current row and as a whole
// revision. A plan with raw JSON of the agent's (raw, _meta), which encoding/json compacts and
// escapes, goes through encoding/json; TestEncodePlan holds the rest to it for every field.
func EncodePlan(p *plans.Plan) []byte {
	if len(p.Raw) > 0 || len(p.Meta) > 0 {
		return mustJSON(p)
	}
	b := make([]byte, 0, 256+len(p.Markdown)+100*len(p.Entries))
	b = append(b, `{"sessionId":`...)
	b = appendString(b, p.SessionID)
	b = append(b, `,"id":`...)
	b = appendString(b, p.ID)
	b = append(b, `,"kind":`...)
	b = appendString(b, string(p.Kind))
	b = append(b, `,"type":`...)
	b = appendString(b, p.Type)
	b = append(b, `,"revision":`...)
	b = strconv.AppendInt(b, int64(p.Revision), 10)
	b = append(b, `,"created":`...)
	b, err1 := appendTime(b, p.Created)
	b = append(b, `,"updated":`...)
	b, err2 := appendTime(b, p.Updated)
	if err1 != nil || err2 != nil {
		return mustJSON(p) // for its error
	}
	if p.Removed {
		b = append(b, `,"removed":true`...)
	}
	if p.Agent != "" {
		b = append(b, `,"agent":`...)
		b = appendString(b, p.Agent)
	}
	if len(p.Entries) > 0 {
		b = append(b, `,"entries":[`...)
		for i, e := range p.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEntry(b, e)
		}
		b = append(b, ']')
	}
	if p.Markdown != "" {
		b = append(b, `,"markdown":`...)
		b = appendString(b, p.Markdown)
	}
	if p.URI != "" {
		b = append(b, `,"uri":`...)
		b = appendString(b, p.URI)
	}
	if len(p.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range p.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, w)
		}
		b = append(b, ']')
	}
	if p.Replayed {
		b = append(b, `,"replayed":true`...)
	}
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, p.Seq, 10)
	return append(b, '}')
}

// EncodeSession is json.Marshal(s): a session's stored JSON, written on every commit that
// touches the session (a plan update rewrites its row for the time it was last seen), where
// encoding/json's reflection cost a few percent of a post's CPU. Its usage goes through
// encoding/json (a cost is a float); TestEncodeSession holds the rest to it for every field.
func EncodeSession(s *plans.Session) []byte {
	b := make([]byte, 0, 192+len(s.ID)+len(s.Cwd)+len(s.Title))
	b = append(b, `{"id":`...)
	b = appendString(b, s.ID)
	b = appendOmitEmpty(b, `,"agent":`, s.Agent)
	b = appendOmitEmpty(b, `,"agentTitle":`, s.AgentTitle)
	b = appendOmitEmpty(b, `,"cwd":`, s.Cwd)
	b = appendOmitEmpty(b, `,"host":`, s.Host)
	b = appendOmitEmpty(b, `,"source":`, s.Source)
	b = appendOmitEmpty(b, `,"agentSessionId":`, s.AgentSessionID)
	if len(s.Via) > 0 {
		b = append(b, `,"via":[`...)
		for i, v := range s.Via {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, v)
		}
		b = append(b, ']')
	}
	if s.Usage != nil {
		b = append(b, `,"usage":`...)
		b = append(b, mustJSON(s.Usage)...)
	}
	b = appendOmitEmpty(b, `,"title":`, s.Title)
	b = appendOmitEmpty(b, `,"mode":`, s.Mode)
	b = append(b, `,"firstSeen":`...)
	b, err1 := appendTime(b, s.FirstSeen)
	b = append(b, `,"lastSeen":`...)
	b, err2 := appendTime(b, s.LastSeen)
	if err1 != nil || err2 != nil {
		return mustJSON(s) // for its error
	}
	if s.Ended {
		b = append(b, `,"ended":true`...)
	}
	b = appendOmitEmpty(b, `,"streaming":`, s.Streaming)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, s.Seq, 10)
	return append(b, '}')
}

// appendOmitEmpty appends a member of text that encoding/json's omitempty leaves out when empty.
func appendOmitEmpty(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, name...), s)
}

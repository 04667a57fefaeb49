package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// DecodeError is a params or result that cannot be used at all: not an object, or missing the
// one member that says where it belongs (a session id, a plan id). Path locates the member
// relative to the params or result, e.g. "update.plan.planId", or is "params" or "result" when
// the whole value is at fault.
type DecodeError struct {
	Path    string
	Message string
}

// Error reads "path: message", so the offending member is named in logs and ingest replies.
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Code is the JSON-RPC error code to answer with: a DecodeError is always about params.
func (e *DecodeError) Code() int { return CodeInvalidParams }

// decoder collects warnings: the decoders skip or ignore what is malformed rather than reject the
// whole message, as the schema's x-deserialize-skip-invalid-items asks, but say so.
type decoder struct {
	warns []Warning
	sp    *spans // of the params being decoded
}

func (d *decoder) warn(path, msg string) {
	d.warns = append(d.warns, Warning{Path: path, Message: msg})
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// ownObject checks that v is a JSON object and returns a private copy of it, so everything the
// decoders return may point into it whatever the caller later does with v. what ("params",
// "result") is the Path of errors about the value as a whole.
func ownObject(what string, v []byte) ([]byte, error) {
	b := TrimSpace(v)
	switch {
	case len(b) == 0:
		return nil, &DecodeError{Path: what, Message: "missing"}
	case !utf8.Valid(b):
		return nil, &DecodeError{Path: what, Message: fmt.Sprintf("not valid UTF-8 (first bad byte at offset %d)", firstBadUTF8(b))}
	case !Valid(b):
		return nil, &DecodeError{Path: what, Message: invalidJSONMessage(b)}
	case !IsObject(b):
		return nil, &DecodeError{Path: what, Message: "must be an object, not " + jsonType(b)}
	}
	return bytes.Clone(b), nil
}

// requireString reads a member the caller cannot do without.
func requireString(v []byte, path string) (string, error) {
	s, ok := Unquote(v)
	if !ok {
		if v == nil {
			return "", &DecodeError{Path: path, Message: "missing"}
		}
		return "", &DecodeError{Path: path, Message: "must be a string, not " + jsonType(v)}
	}
	return s, nil
}

// optString reads an optional string. null counts as not sent; a wrong type is ignored with a
// warning, because one odd field should not hide the rest of an update.
func (d *decoder) optString(v []byte, path string) *string {
	if v == nil || IsNull(v) {
		return nil
	}
	s, ok := Unquote(v)
	if !ok {
		d.warn(path, "must be a string, not "+jsonType(v)+"; ignored")
		return nil
	}
	return &s
}

// rawOpt keeps a member as sent; null means not sent.
func rawOpt(v []byte) json.RawMessage {
	if v == nil || IsNull(v) {
		return nil
	}
	return v
}

// The members of an update object, all variants together, so the update is scanned once.
const (
	uSessionUpdate = iota
	uMeta
	uEntries
	uPlan
	uPlanID
	uID
	uToolCallID
	uTitle
	uKind
	uStatus
	uName
	uContent
	uLocations
	uRawInput
	uRawOutput
	uMessageID
	uCurrentModeID
	uModeID
	uCount
)

// DecodeSessionNotification decodes the params of session/update. It fails only when the update
// cannot be attributed or classified: params not an object, sessionId missing or not a string,
// update missing or not an object, sessionUpdate not a string, or a plan_update/plan_removed
// without a plan id. Everything else is tolerated: invalid plan entries are skipped, odd fields
// ignored (each with a Warning), unknown variants kept with Kind and Raw. All returned raw fields
// point into a private copy of params.
func DecodeSessionNotification(params json.RawMessage) (SessionNotification, []Warning, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return SessionNotification{}, nil, err
	}
	return decodeSessionNotification(b, newSpans(b))
}

// SessionNotification decodes m's params as DecodeSessionNotification does. When DecodeLine
// made m, its params were checked and copied with the line, so they are not checked and copied
// a second time: what it returns points into that copy, which m.Params shares.
func (m Message) SessionNotification() (SessionNotification, []Warning, error) {
	p, b := m.Params, TrimSpace(m.Params)
	checked := len(p) > 0 && len(p) == len(m.checked) && &p[0] == &m.checked[0]
	if !checked || !IsObject(b) { // not checked, or to fail as DecodeSessionNotification does
		return DecodeSessionNotification(p)
	}
	return decodeSessionNotification(b, m.spans)
}

// decodeSessionNotification decodes params b, a JSON object that is valid UTF-8 and not
// shared with the caller, stepping over its containers with sp.
func decodeSessionNotification(b []byte, sp *spans) (SessionNotification, []Warning, error) {
	var f [3][]byte
	sp.lookup(b, f[:], "sessionId", "update", "_meta")
	sid, err := requireString(f[0], "sessionId")
	if err != nil {
		return SessionNotification{}, nil, err
	}
	if !IsObject(f[1]) {
		msg := "missing"
		if f[1] != nil {
			msg = "must be an object, not " + jsonType(f[1])
		}
		return SessionNotification{}, nil, &DecodeError{Path: "update", Message: msg}
	}
	d := decoder{sp: sp}
	u, err := d.update(f[1])
	if err != nil {
		return SessionNotification{}, nil, err
	}
	return SessionNotification{SessionID: sid, Update: u, Meta: rawOpt(f[2])}, d.warns, nil
}

func (d *decoder) update(b []byte) (Update, error) {
	var f [uCount][]byte
	d.sp.lookup(b, f[:], "sessionUpdate", "_meta", "entries", "plan", "planId", "id", "toolCallId",
		"title", "kind", "status", "name", "content", "locations", "rawInput", "rawOutput",
		"messageId", "currentModeId", "modeId")
	kind, err := requireString(f[uSessionUpdate], "update.sessionUpdate")
	if err != nil {
		return Update{}, err
	}
	if kind == "" {
		return Update{}, &DecodeError{Path: "update.sessionUpdate", Message: "must not be empty"}
	}
	u := Update{Kind: kind, Meta: rawOpt(f[uMeta]), Raw: b}
	switch kind {
	case KindPlan:
		// The v1 Plan's own _meta is the update's, since its fields are flattened into it.
		if entries, ok := d.entryArray(f[uEntries], "update.entries"); ok {
			u.Plan = &PlanContent{PlanID: V1PlanID, Type: PlanItems, V1: true, Entries: entries, Meta: u.Meta, Raw: b}
		}
	case KindPlanUpdate:
		if !IsObject(f[uPlan]) {
			msg := "missing; the plan cannot be placed"
			if f[uPlan] != nil {
				msg = "must be an object, not " + jsonType(f[uPlan])
			}
			return Update{}, &DecodeError{Path: "update.plan", Message: msg}
		}
		u.Plan, err = d.planContent(f[uPlan], "update.plan")
		if err != nil {
			return Update{}, err
		}
	case KindPlanRemoved:
		id, err := planID(f[uPlanID], f[uID], "update")
		if err != nil {
			return Update{}, err
		}
		u.PlanRemoved = &PlanRemoved{PlanID: id, Meta: u.Meta}
	case KindToolCall, KindToolCallUpdate:
		tc, ok := d.toolCall(toolFields{
			id: f[uToolCallID], title: f[uTitle], kind: f[uKind], status: f[uStatus], name: f[uName],
			content: f[uContent], locations: f[uLocations], rawInput: f[uRawInput],
			rawOutput: f[uRawOutput], meta: f[uMeta],
		}, "update", kind == KindToolCall)
		if ok {
			u.ToolCall = &tc
		}
	case "agent_message_chunk", "user_message_chunk", "agent_thought_chunk":
		u.Chunk = d.chunk(f[uContent], f[uMessageID])
	case KindModeUpdate:
		v, path := f[uCurrentModeID], "update.currentModeId"
		if v == nil {
			v = f[uModeID] // session-modes.mdx spells it modeId (spec §12)
		}
		if s, ok := Unquote(v); ok {
			u.ModeID = s
		} else if v == nil {
			d.warn(path, "missing")
		} else {
			d.warn(path, "must be a string, not "+jsonType(v)+"; ignored")
		}
	case KindSessionInfo:
		u.Info = &SessionInfo{}
		if IsNull(f[uTitle]) {
			empty := "" // null clears the title
			u.Info.Title = &empty
		} else {
			u.Info.Title = d.optString(f[uTitle], "update.title")
		}
	}
	return u, nil
}

// planID reads a plan id from planId or, for peers on schema 0.13.x, id.
func planID(planIDVal, idVal []byte, prefix string) (string, error) {
	v, name := planIDVal, "planId"
	if v == nil || IsNull(v) {
		if idVal != nil && !IsNull(idVal) {
			v, name = idVal, "id"
		}
	}
	path := join(prefix, name)
	if v == nil || IsNull(v) {
		return "", &DecodeError{Path: path, Message: `missing (and no older "id" either); the plan cannot be placed`}
	}
	s, ok := Unquote(v)
	if !ok {
		return "", &DecodeError{Path: path, Message: "must be a string, not " + jsonType(v)}
	}
	if s == "" {
		return "", &DecodeError{Path: path, Message: "must not be empty"}
	}
	return s, nil
}

// planContent decodes a plan_update's plan. A plan whose content is unusable (items without an
// entries array, markdown without text, file without uri) is returned as nil with a warning,
// rather than as an empty plan that would wipe what the user sees.
func (d *decoder) planContent(b []byte, prefix string) (*PlanContent, error) {
	var f [7][]byte
	d.sp.lookup(b, f[:], "type", "planId", "id", "entries", "content", "uri", "_meta")
	id, err := planID(f[1], f[2], prefix)
	if err != nil {
		return nil, err
	}
	pc := &PlanContent{PlanID: id, Meta: rawOpt(f[6]), Raw: b}
	typ, ok := Unquote(f[0])
	if !ok {
		// Kept like any unknown type: Raw has everything there is.
		msg := "missing; kept as an unknown plan type"
		if f[0] != nil {
			msg = "must be a string, not " + jsonType(f[0]) + "; kept as an unknown plan type"
		}
		d.warn(join(prefix, "type"), msg)
		return pc, nil
	}
	pc.Type = typ
	switch typ {
	case PlanItems:
		entries, ok := d.entryArray(f[3], join(prefix, "entries"))
		if !ok {
			return nil, nil
		}
		pc.Entries = entries
	case PlanMarkdown:
		s, ok := Unquote(f[4])
		if !ok {
			d.warn(join(prefix, "content"), notString(f[4])+"; the plan was not applied")
			return nil, nil
		}
		pc.Markdown = s
	case PlanFile:
		s, ok := Unquote(f[5])
		if !ok {
			d.warn(join(prefix, "uri"), notString(f[5])+"; the plan was not applied")
			return nil, nil
		}
		pc.URI = s
	}
	return pc, nil
}

func notString(v []byte) string {
	if v == nil {
		return "missing"
	}
	return "must be a string, not " + jsonType(v)
}

// entryArray decodes a plan's entries, skipping invalid ones. ok is false when there is no array
// at all, so the plan is not applied.
func (d *decoder) entryArray(v []byte, path string) ([]PlanEntry, bool) {
	if !IsArray(v) {
		msg := "missing; the plan was not applied"
		if v != nil {
			msg = "must be an array, not " + jsonType(v) + "; the plan was not applied"
		}
		d.warn(path, msg)
		return nil, false
	}
	out := make([]PlanEntry, 0, d.sp.countElems(v))
	i := 0
	for it := d.sp.arrayIter(v); ; i++ {
		el, ok := it.Next()
		if !ok {
			break
		}
		if e, ok := d.entry(el, path, i); ok {
			out = append(out, e)
		}
	}
	return out, true
}

func (d *decoder) entry(el []byte, path string, i int) (PlanEntry, bool) {
	at := func(field string) string {
		if field == "" {
			return fmt.Sprintf("%s[%d]", path, i)
		}
		return fmt.Sprintf("%s[%d].%s", path, i, field)
	}
	const skipped = "; entry skipped"
	if !IsObject(el) {
		d.warn(at(""), "must be an object, not "+jsonType(el)+skipped)
		return PlanEntry{}, false
	}
	var f [4][]byte
	d.sp.lookup(el, f[:], "content", "priority", "status", "_meta")
	content, ok := Unquote(f[0])
	if !ok {
		d.warn(at("content"), notString(f[0])+skipped)
		return PlanEntry{}, false
	}
	prio, ok := Unquote(f[1])
	if !ok {
		d.warn(at("priority"), notString(f[1])+skipped)
		return PlanEntry{}, false
	}
	if !validPriority(prio) {
		d.warn(at("priority"), describe(f[1])+" is not a priority (high, medium, low or _custom)"+skipped)
		return PlanEntry{}, false
	}
	status, ok := Unquote(f[2])
	if !ok {
		d.warn(at("status"), notString(f[2])+skipped)
		return PlanEntry{}, false
	}
	if !validStatus(status) {
		d.warn(at("status"), describe(f[2])+" is not a status (pending, in_progress, completed, cancelled or _custom)"+skipped)
		return PlanEntry{}, false
	}
	return PlanEntry{Content: content, Priority: prio, Status: status, Meta: rawOpt(f[3])}, true
}

// isCustom reports a "_"-prefixed extension value, which v2 makes legal in every open enum.
func isCustom(s string) bool { return len(s) > 1 && s[0] == '_' }

func validPriority(s string) bool {
	return s == "high" || s == "medium" || s == "low" || isCustom(s)
}

// validStatus accepts v2's "cancelled" in v1 traffic too: agents send it before the schema does.
func validStatus(s string) bool {
	return s == "pending" || s == "in_progress" || s == "completed" || s == "cancelled" || isCustom(s)
}

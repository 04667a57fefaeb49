// Package acp holds the Agent Client Protocol wire types plandash reads, a tolerant decoder for
// them, and NDJSON framing. It depends on the standard library only.
package acp

import (
	"encoding/json"
	"time"
)

// JSON-RPC error codes used in per-line ingest errors.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// Message is one JSON-RPC 2.0 message: a request (ID and Method), a notification (Method only) or
// a response (ID and Result or Error). Raw keeps the exact bytes it was decoded from.
type Message struct {
	ID     json.RawMessage // nil for notifications; a JSON number or string otherwise
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError
	Raw    json.RawMessage

	// Dir and Time are known when the message came from a recorded transcript or the proxy;
	// Dir is "" otherwise.
	Dir  Direction
	Time time.Time

	// checked is Params as DecodeLine checked them (valid JSON and UTF-8) in the copy of the
	// line it made: while m.Params is still that slice, decoding them need neither check nor
	// copy them again (SessionNotification).
	checked json.RawMessage
	// spans are where the containers of that copy end, as far as decoding the line found out.
	spans *spans
}

// IsRequest reports whether m is a request (it has both an id and a method).
func (m Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification (a method and no id).
func (m Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m answers a request.
func (m Message) IsResponse() bool { return m.Method == "" && m.ID != nil }

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Direction says which peer sent a message.
type Direction string

// The two directions of an ACP connection.
const (
	ClientToAgent Direction = "c2a"
	AgentToClient Direction = "a2c"
)

// Warning is a problem that did not stop decoding: an entry skipped, a field ignored.
// Path locates it inside the message, e.g. "update.entries[3].priority".
type Warning struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (w Warning) String() string { return w.Path + ": " + w.Message }

// SessionNotification is the params of session/update.
type SessionNotification struct {
	SessionID string
	Update    Update
	Meta      json.RawMessage
}

// Update is one decoded session/update variant. Kind is the sessionUpdate value; exactly one of
// the pointer fields is set for the variants plandash understands, and Raw always holds the
// whole update object so unknown variants are kept, never dropped.
type Update struct {
	Kind        string
	Plan        *PlanContent    // "plan" (V1 set, PlanID "main") and "plan_update"
	PlanRemoved *PlanRemoved    // "plan_removed"
	ToolCall    *ToolCallUpdate // "tool_call" (Create set) and "tool_call_update"
	Chunk       *ContentChunk   // user_message_chunk, agent_message_chunk, agent_thought_chunk
	ModeID      string          // current_mode_update (currentModeId or modeId)
	Info        *SessionInfo    // session_info_update
	Meta        json.RawMessage
	Raw         json.RawMessage
}

// Update kinds.
const (
	KindPlan           = "plan"
	KindPlanUpdate     = "plan_update"
	KindPlanRemoved    = "plan_removed"
	KindToolCall       = "tool_call"
	KindToolCallUpdate = "tool_call_update"
	KindModeUpdate     = "current_mode_update"
	KindSessionInfo    = "session_info_update"
)

// V1PlanID is the synthetic id of a session's v1 plan, as in the v2 RFD.
const V1PlanID = "main"

// Plan content types. Any other type (custom "_…" or future) is kept whole in PlanContent.Raw.
const (
	PlanItems    = "items"
	PlanMarkdown = "markdown"
	PlanFile     = "file"
)

// PlanContent is a whole plan as sent by plan (v1) or plan_update.
type PlanContent struct {
	PlanID   string
	Type     string // items, markdown, file, or anything else
	V1       bool   // it came from a v1 "plan" update
	Entries  []PlanEntry
	Markdown string
	URI      string
	Meta     json.RawMessage
	Raw      json.RawMessage // the plan object as received (for custom types, everything there is)
}

// PlanEntry is one checklist item. Priority and Status are kept as sent when they are custom
// ("_…") or the v2 "cancelled".
type PlanEntry struct {
	Content  string          `json:"content"`
	Priority string          `json:"priority"`
	Status   string          `json:"status"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// PlanRemoved retires a plan.
type PlanRemoved struct {
	PlanID string
	Meta   json.RawMessage
}

// ToolCallUpdate is a tool_call (Create) or tool_call_update. Nil pointers and nil raw fields
// mean "not sent"; collections, when sent, replace the previous ones.
type ToolCallUpdate struct {
	ToolCallID string
	Create     bool
	Title      *string
	Kind       *string
	Status     *string
	Name       *string
	Content    json.RawMessage // array, normalised so bare content blocks are wrapped
	Locations  json.RawMessage
	RawInput   json.RawMessage
	RawOutput  json.RawMessage
	Meta       json.RawMessage
}

// ContentChunk is a streamed piece of a message.
type ContentChunk struct {
	MessageID string
	Content   json.RawMessage // the ContentBlock
	Text      string          // the text of a text block, "" otherwise
}

// SessionInfo is a session_info_update.
type SessionInfo struct {
	Title *string
}

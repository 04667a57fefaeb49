package acp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Method names plandash looks at. The full tables are in shared/acp/meta*.json.
const (
	MethodInitialize        = "initialize"
	MethodAuthenticate      = "authenticate"
	MethodSessionNew        = "session/new"
	MethodSessionLoad       = "session/load"
	MethodSessionPrompt     = "session/prompt"
	MethodSessionUpdate     = "session/update"
	MethodRequestPermission = "session/request_permission"
	MethodSessionCancel     = "session/cancel"
	MethodCancelRequest     = "$/cancel_request"
)

// knownMethods is every method ACP defines: the stable and unstable tables of
// shared/acp/meta*.json, v2's auth/login and auth/logout, and session/set_model, which earlier
// unstable versions had and agents still send. TestKnownMethods holds it to the tables. It is
// read only.
var knownMethods = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`initialize authenticate logout session/new session/load session/set_mode
		session/set_model session/set_config_option session/prompt session/cancel session/list session/delete
		session/resume session/close session/fork session/update session/request_permission fs/write_text_file
		fs/read_text_file terminal/create terminal/output terminal/release terminal/wait_for_exit terminal/kill
		elicitation/create elicitation/complete providers/list providers/set providers/disable mcp/message
		mcp/connect mcp/disconnect nes/start nes/suggest nes/accept nes/reject nes/close document/didOpen
		document/didChange document/didClose document/didSave document/didFocus auth/login auth/logout
		$/cancel_request`) {
		m[name] = true
	}
	return m
}()

// KnownMethod reports whether ACP defines method. Ingest refuses any other name that is not an
// extension's ("_…", "$/…"); metrics count a message under its method only when it is known, so
// a client cannot grow the series without bound.
func KnownMethod(method string) bool { return knownMethods[method] }

// MethodSender says which peer sends requests or notifications of a method: ClientToAgent for
// what the agent handles (initialize, authenticate, session/* except session/update and
// session/request_permission, …), AgentToClient for what the client handles (session/update,
// session/request_permission, fs/*, terminal/*, elicitation/*), and "" when either may send it
// ($/ methods, mcp/message) or the method is unknown (custom "_…" methods).
func MethodSender(method string) Direction {
	switch method {
	case MethodSessionUpdate, MethodRequestPermission, "mcp/connect", "mcp/disconnect":
		return AgentToClient
	case MethodInitialize, MethodAuthenticate, "logout":
		return ClientToAgent
	}
	for _, p := range []string{"fs/", "terminal/", "elicitation/"} {
		if strings.HasPrefix(method, p) {
			return AgentToClient
		}
	}
	for _, p := range []string{"session/", "auth/", "providers/", "nes/", "document/"} {
		if strings.HasPrefix(method, p) {
			return ClientToAgent
		}
	}
	return ""
}

// Implementation names a client or agent program (clientInfo, agentInfo).
type Implementation struct {
	Name, Title, Version string
}

// InitializeParams is what plandash needs from an initialize request.
type InitializeParams struct {
	ProtocolVersion int
	ClientInfo      *Implementation // nil when not sent
	// PlanCapable is true when clientCapabilities.plan, or the pre-0.13.6 spelling
	// planCapabilities, is an object (or true); null, false or absent mean no support.
	PlanCapable  bool
	Capabilities json.RawMessage // clientCapabilities as sent
}

// InitializeResult is what plandash needs from an initialize response.
type InitializeResult struct {
	ProtocolVersion int
	AgentInfo       *Implementation // nil when not sent
}

// NewSessionParams is what plandash needs from a session/new request.
type NewSessionParams struct {
	Cwd  string
	Meta json.RawMessage // the params' _meta, as sent
}

// NewSessionResult is the session id a session/new response assigns.
type NewSessionResult struct {
	SessionID string
}

// LoadSessionParams names the session a session/load request replays.
type LoadSessionParams struct {
	SessionID, Cwd string
}

// RequestPermissionParams is a session/request_permission request. Plan approval arrives this
// way, as a tool call of kind "switch_mode" (spec §8.1). Warnings lists what was skipped or
// ignored, as for session updates.
type RequestPermissionParams struct {
	SessionID string
	ToolCall  ToolCallUpdate
	Options   []PermissionOption
	Meta      json.RawMessage
	Warnings  []Warning
}

// PermissionOption is one choice offered to the user; Kind is allow_once, allow_always,
// reject_once or reject_always (or whatever a newer peer sends).
type PermissionOption struct {
	OptionID, Name, Kind string
}

// PermissionOutcome is the answer to a permission request: Outcome "selected" with the chosen
// OptionID, or "cancelled" (or a value from a newer peer, kept as sent).
type PermissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
	// Feedback is what the person said with a rejection on the dashboard. It is not a field of
	// ACP's outcome: the proxy sends it in the outcome's _meta (FeedbackMeta).
	Feedback string `json:"feedback,omitempty"`
}

// CancelParams is a session/cancel notification.
type CancelParams struct {
	SessionID string
}

// CancelRequestParams is a $/cancel_request notification; RequestID is the id as sent (a number,
// a string or null) for matching with a Correlator.
type CancelRequestParams struct {
	RequestID json.RawMessage
}

// DecodeInitializeParams decodes initialize params. protocolVersion is required: it decides how
// everything after it is read.
func DecodeInitializeParams(params json.RawMessage) (InitializeParams, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return InitializeParams{}, err
	}
	var f [3][]byte
	Lookup(b, f[:], "protocolVersion", "clientInfo", "clientCapabilities")
	v, err := protocolVersion(f[0])
	if err != nil {
		return InitializeParams{}, err
	}
	p := InitializeParams{ProtocolVersion: v, ClientInfo: DecodeImplementation(f[1]), Capabilities: rawOpt(f[2])}
	if IsObject(f[2]) {
		var c [2][]byte
		Lookup(f[2], c[:], "plan", "planCapabilities")
		p.PlanCapable = capable(c[0]) || capable(c[1])
	}
	return p, nil
}

func capable(v []byte) bool { return IsObject(v) || string(v) == "true" }

// DecodeInitializeResult decodes an initialize response's result.
func DecodeInitializeResult(result json.RawMessage) (InitializeResult, error) {
	b, err := ownObject("result", result)
	if err != nil {
		return InitializeResult{}, err
	}
	var f [2][]byte
	Lookup(b, f[:], "protocolVersion", "agentInfo")
	v, err := protocolVersion(f[0])
	if err != nil {
		return InitializeResult{}, err
	}
	return InitializeResult{ProtocolVersion: v, AgentInfo: DecodeImplementation(f[1])}, nil
}

// protocolVersion parses the uint16 version without going through float64.
func protocolVersion(v []byte) (int, error) {
	if v == nil {
		return 0, &DecodeError{Path: "protocolVersion", Message: "missing"}
	}
	n := 0
	for i, c := range v {
		if c < '0' || c > '9' || i > 4 {
			return 0, &DecodeError{Path: "protocolVersion", Message: "must be an integer from 0 to 65535, not " + describe(v)}
		}
		n = n*10 + int(c-'0')
	}
	if n > 65535 {
		return 0, &DecodeError{Path: "protocolVersion", Message: fmt.Sprintf("must be an integer from 0 to 65535, not %d", n)}
	}
	return n, nil
}

// DecodeImplementation reads an Implementation object (clientInfo, agentInfo); nil when v is
// not an object. It is lenient: the info is for display, so odd members are left empty.
func DecodeImplementation(v []byte) *Implementation {
	if !IsObject(v) {
		return nil
	}
	var f [3][]byte
	Lookup(v, f[:], "name", "title", "version")
	var im Implementation
	im.Name, _ = Unquote(f[0])
	im.Title, _ = Unquote(f[1])
	im.Version, _ = Unquote(f[2])
	return &im
}

// DecodeNewSessionParams decodes session/new params. cwd is optional here: plandash only shows it.
func DecodeNewSessionParams(params json.RawMessage) (NewSessionParams, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return NewSessionParams{}, err
	}
	var f [2][]byte
	Lookup(b, f[:], "cwd", "_meta")
	cwd, _ := Unquote(f[0])
	return NewSessionParams{Cwd: cwd, Meta: json.RawMessage(f[1])}, nil
}

// DecodeNewSessionResult decodes a session/new result. A null result (seen in docs for other
// methods, spec §12) gives an empty SessionID and no error; an object must carry sessionId.
func DecodeNewSessionResult(result json.RawMessage) (NewSessionResult, error) {
	if IsNull(TrimSpace(result)) {
		return NewSessionResult{}, nil
	}
	b, err := ownObject("result", result)
	if err != nil {
		return NewSessionResult{}, err
	}
	var f [1][]byte
	Lookup(b, f[:], "sessionId")
	id, err := requireString(f[0], "sessionId")
	if err != nil {
		return NewSessionResult{}, err
	}
	return NewSessionResult{SessionID: id}, nil
}

// DecodeLoadSessionParams decodes session/load params; sessionId is required.
func DecodeLoadSessionParams(params json.RawMessage) (LoadSessionParams, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return LoadSessionParams{}, err
	}
	var f [2][]byte
	Lookup(b, f[:], "sessionId", "cwd")
	id, err := requireString(f[0], "sessionId")
	if err != nil {
		return LoadSessionParams{}, err
	}
	cwd, _ := Unquote(f[1])
	return LoadSessionParams{SessionID: id, Cwd: cwd}, nil
}

// DecodeRequestPermissionParams decodes session/request_permission params. It fails only without
// a sessionId string or a toolCall object; the tool call is read like a tool_call_update (bare
// content blocks wrapped), and invalid options are skipped with a warning.
func DecodeRequestPermissionParams(params json.RawMessage) (RequestPermissionParams, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return RequestPermissionParams{}, err
	}
	var f [4][]byte
	Lookup(b, f[:], "sessionId", "toolCall", "options", "_meta")
	id, err := requireString(f[0], "sessionId")
	if err != nil {
		return RequestPermissionParams{}, err
	}
	if !IsObject(f[1]) {
		msg := "missing"
		if f[1] != nil {
			msg = "must be an object, not " + jsonType(f[1])
		}
		return RequestPermissionParams{}, &DecodeError{Path: "toolCall", Message: msg}
	}
	var d decoder
	p := RequestPermissionParams{SessionID: id, Meta: rawOpt(f[3])}
	p.ToolCall, _ = d.toolCall(toolFieldsOf(f[1]), "toolCall", false)
	p.Options = d.options(f[2])
	p.Warnings = d.warns
	return p, nil
}

func (d *decoder) options(v []byte) []PermissionOption {
	if !IsArray(v) {
		d.warn("options", notArray(v))
		return nil
	}
	out := make([]PermissionOption, 0, countElems(v))
	i := 0
	for it := NewArrayIter(v); ; i++ {
		el, ok := it.Next()
		if !ok {
			return out
		}
		if !IsObject(el) {
			d.warn(fmt.Sprintf("options[%d]", i), "must be an object, not "+jsonType(el)+"; option skipped")
			continue
		}
		var f [3][]byte
		Lookup(el, f[:], "optionId", "name", "kind")
		oid, ok := Unquote(f[0])
		if !ok {
			d.warn(fmt.Sprintf("options[%d].optionId", i), notString(f[0])+"; option skipped")
			continue
		}
		o := PermissionOption{OptionID: oid}
		o.Name, _ = Unquote(f[1])
		o.Kind, _ = Unquote(f[2])
		out = append(out, o)
	}
}

func notArray(v []byte) string {
	if v == nil {
		return "missing"
	}
	return "must be an array, not " + jsonType(v)
}

// DecodePermissionOutcome decodes the result of a session/request_permission response.
func DecodePermissionOutcome(result json.RawMessage) (PermissionOutcome, error) {
	b, err := ownObject("result", result)
	if err != nil {
		return PermissionOutcome{}, err
	}
	var f [1][]byte
	Lookup(b, f[:], "outcome")
	if !IsObject(f[0]) {
		msg := "missing"
		if f[0] != nil {
			msg = "must be an object, not " + jsonType(f[0])
		}
		return PermissionOutcome{}, &DecodeError{Path: "outcome", Message: msg}
	}
	var o [2][]byte
	Lookup(f[0], o[:], "outcome", "optionId")
	outcome, err := requireString(o[0], "outcome.outcome")
	if err != nil {
		return PermissionOutcome{}, err
	}
	res := PermissionOutcome{Outcome: outcome}
	if outcome == "selected" {
		if res.OptionID, err = requireString(o[1], "outcome.optionId"); err != nil {
			return PermissionOutcome{}, err
		}
	} else {
		res.OptionID, _ = Unquote(o[1])
	}
	return res, nil
}

// DecodeCancelParams decodes session/cancel params; sessionId is required.
func DecodeCancelParams(params json.RawMessage) (CancelParams, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return CancelParams{}, err
	}
	var f [1][]byte
	Lookup(b, f[:], "sessionId")
	id, err := requireString(f[0], "sessionId")
	if err != nil {
		return CancelParams{}, err
	}
	return CancelParams{SessionID: id}, nil
}

// DecodeCancelRequestParams decodes $/cancel_request params; requestId must be a number, a
// string or null, like any JSON-RPC id.
func DecodeCancelRequestParams(params json.RawMessage) (CancelRequestParams, error) {
	b, err := ownObject("params", params)
	if err != nil {
		return CancelRequestParams{}, err
	}
	var f [1][]byte
	Lookup(b, f[:], "requestId")
	switch v := f[0]; {
	case v == nil:
		return CancelRequestParams{}, &DecodeError{Path: "requestId", Message: "missing"}
	case !isNumber(v) && !isString(v) && !IsNull(v):
		return CancelRequestParams{}, &DecodeError{Path: "requestId", Message: "must be a number, string or null, not " + jsonType(v)}
	default:
		return CancelRequestParams{RequestID: v}, nil
	}
}

// FeedbackMeta is the _meta that carries the dashboard's feedback with a selected outcome:
// {"plandash": {"feedback": "…"}}.
func FeedbackMeta(feedback string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"plandash": map[string]string{"feedback": feedback}})
	return b
}

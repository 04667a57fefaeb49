package acp

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeMethods(t *testing.T) {
	tests := []struct {
		name   string
		decode func(json.RawMessage) (any, error)
		in     string
		want   any
	}{
		{"initialize", wrap(DecodeInitializeParams),
			`{"protocolVersion":1,"clientInfo":{"name":"zed","title":"Zed","version":"0.2"},"clientCapabilities":{"fs":{},"plan":{}}}`,
			InitializeParams{ProtocolVersion: 1, ClientInfo: &Implementation{"zed", "Zed", "0.2"}, PlanCapable: true, Capabilities: raw(`{"fs":{},"plan":{}}`)}},
		{"initialize old plan key", wrap(DecodeInitializeParams),
			`{"protocolVersion":1,"clientCapabilities":{"planCapabilities":{}}}`,
			InitializeParams{ProtocolVersion: 1, PlanCapable: true, Capabilities: raw(`{"planCapabilities":{}}`)}},
		{"initialize plan null", wrap(DecodeInitializeParams),
			`{"protocolVersion":2,"clientCapabilities":{"plan":null,"planCapabilities":false}}`,
			InitializeParams{ProtocolVersion: 2, Capabilities: raw(`{"plan":null,"planCapabilities":false}`)}},
		{"initialize minimal", wrap(DecodeInitializeParams), `{"protocolVersion":1}`, InitializeParams{ProtocolVersion: 1}},
		{"initialize result", wrap(DecodeInitializeResult),
			`{"protocolVersion":1,"agentInfo":{"name":"a","version":"1","title":null},"authMethods":[]}`,
			InitializeResult{ProtocolVersion: 1, AgentInfo: &Implementation{Name: "a", Version: "1"}}},
		{"session/new", wrap(DecodeNewSessionParams), `{"cwd":"/p","mcpServers":[]}`, NewSessionParams{Cwd: "/p"}},
		{"session/new no cwd", wrap(DecodeNewSessionParams), `{}`, NewSessionParams{}},
		{"session/new result", wrap(DecodeNewSessionResult), `{"sessionId":"s1","modes":null}`, NewSessionResult{SessionID: "s1"}},
		{"session/new result null", wrap(DecodeNewSessionResult), ` null `, NewSessionResult{}},
		{"session/load", wrap(DecodeLoadSessionParams), `{"sessionId":"s1","cwd":"/p","mcpServers":[]}`, LoadSessionParams{SessionID: "s1", Cwd: "/p"}},
		{"outcome selected", wrap(DecodePermissionOutcome), `{"outcome":{"outcome":"selected","optionId":"allow"}}`, PermissionOutcome{Outcome: "selected", OptionID: "allow"}},
		{"outcome cancelled", wrap(DecodePermissionOutcome), `{"outcome":{"outcome":"cancelled"}}`, PermissionOutcome{Outcome: "cancelled"}},
		{"outcome future", wrap(DecodePermissionOutcome), `{"outcome":{"outcome":"_deferred"}}`, PermissionOutcome{Outcome: "_deferred"}},
		{"session/cancel", wrap(DecodeCancelParams), `{"sessionId":"s1"}`, CancelParams{SessionID: "s1"}},
		{"$/cancel_request number", wrap(DecodeCancelRequestParams), `{"requestId":5}`, CancelRequestParams{RequestID: raw(`5`)}},
		{"$/cancel_request string", wrap(DecodeCancelRequestParams), `{"requestId":"r-5"}`, CancelRequestParams{RequestID: raw(`"r-5"`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.decode(json.RawMessage(tt.in))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func wrap[T any](f func(json.RawMessage) (T, error)) func(json.RawMessage) (any, error) {
	return func(b json.RawMessage) (any, error) {
		v, err := f(b)
		return v, err
	}
}

func TestDecodeMethodErrors(t *testing.T) {
	tests := []struct {
		name   string
		decode func(json.RawMessage) (any, error)
		in     string
		path   string
		msg    string
	}{
		{"initialize no version", wrap(DecodeInitializeParams), `{}`, "protocolVersion", "missing"},
		{"initialize string version", wrap(DecodeInitializeParams), `{"protocolVersion":"1"}`, "protocolVersion", `must be an integer from 0 to 65535, not "1"`},
		{"initialize fractional version", wrap(DecodeInitializeParams), `{"protocolVersion":1.5}`, "protocolVersion", "not 1.5"},
		{"initialize huge version", wrap(DecodeInitializeParams), `{"protocolVersion":70000}`, "protocolVersion", "not 70000"},
		{"initialize params array", wrap(DecodeInitializeParams), `[]`, "params", "must be an object, not an array"},
		{"initialize result null", wrap(DecodeInitializeResult), `null`, "result", "must be an object, not null"},
		{"session/new result no id", wrap(DecodeNewSessionResult), `{}`, "sessionId", "missing"},
		{"session/load no id", wrap(DecodeLoadSessionParams), `{"cwd":"/"}`, "sessionId", "missing"},
		{"permission no toolCall", wrap(DecodeRequestPermissionParams), `{"sessionId":"s","options":[]}`, "toolCall", "missing"},
		{"permission toolCall string", wrap(DecodeRequestPermissionParams), `{"sessionId":"s","toolCall":"x"}`, "toolCall", "must be an object, not a string"},
		{"outcome missing", wrap(DecodePermissionOutcome), `{}`, "outcome", "missing"},
		{"outcome string", wrap(DecodePermissionOutcome), `{"outcome":"selected"}`, "outcome", "must be an object, not a string"},
		{"outcome selected without option", wrap(DecodePermissionOutcome), `{"outcome":{"outcome":"selected"}}`, "outcome.optionId", "missing"},
		{"cancel no session", wrap(DecodeCancelParams), `{"sessionId":null}`, "sessionId", "must be a string, not null"},
		{"cancel_request no id", wrap(DecodeCancelRequestParams), `{}`, "requestId", "missing"},
		{"cancel_request object id", wrap(DecodeCancelRequestParams), `{"requestId":{}}`, "requestId", "must be a number, string or null, not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.decode(json.RawMessage(tt.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error = %v (%T), want *DecodeError", err, err)
			}
			if de.Path != tt.path || !strings.Contains(de.Message, tt.msg) {
				t.Errorf("got %q %q, want %q containing %q", de.Path, de.Message, tt.path, tt.msg)
			}
		})
	}
}

func TestDecodeRequestPermissionParams(t *testing.T) {
	in := `{"sessionId":"s","_meta":{"m":1},"toolCall":{"toolCallId":"call_2","kind":"switch_mode","title":"Ready to code?",` +
		`"content":[{"type":"text","text":"## Plan"}],"rawInput":{"plan":"## Plan"}},` +
		`"options":[{"optionId":"exit-plan-default","name":"Yes","kind":"allow_once"},{"name":"no id","kind":"reject_once"},3,{"optionId":"reject","name":"No","kind":"reject_once"}]}`
	p, err := DecodeRequestPermissionParams(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.SessionID != "s" || p.ToolCall.ToolCallID != "call_2" || *p.ToolCall.Kind != "switch_mode" || p.ToolCall.Create ||
		string(p.ToolCall.RawInput) != `{"plan":"## Plan"}` || string(p.Meta) != `{"m":1}` {
		t.Errorf("params = %+v", p)
	}
	if got, want := string(p.ToolCall.Content), `[{"type":"content","content":{"type":"text","text":"## Plan"}}]`; got != want {
		t.Errorf("content = %s, want %s", got, want)
	}
	wantOpts := []PermissionOption{{"exit-plan-default", "Yes", "allow_once"}, {"reject", "No", "reject_once"}}
	if !reflect.DeepEqual(p.Options, wantOpts) {
		t.Errorf("options = %+v", p.Options)
	}
	wantWarns := []Warning{
		{"options[1].optionId", "missing; option skipped"},
		{"options[2]", "must be an object, not a number; option skipped"},
	}
	if !reflect.DeepEqual(p.Warnings, wantWarns) {
		t.Errorf("warnings = %q", p.Warnings)
	}

	p, err = DecodeRequestPermissionParams(json.RawMessage(`{"sessionId":"s","toolCall":{"title":"t"}}`))
	if err != nil {
		t.Fatal(err)
	}
	wantWarns = []Warning{{"toolCall.toolCallId", "missing; the tool call cannot be tracked"}, {"options", "missing"}}
	if !reflect.DeepEqual(p.Warnings, wantWarns) || *p.ToolCall.Title != "t" {
		t.Errorf("warnings = %q, tool call %+v", p.Warnings, p.ToolCall)
	}
}

func TestMethodSender(t *testing.T) {
	tests := map[string]Direction{
		MethodInitialize: ClientToAgent, MethodAuthenticate: ClientToAgent, MethodSessionNew: ClientToAgent,
		MethodSessionLoad: ClientToAgent, MethodSessionPrompt: ClientToAgent, MethodSessionCancel: ClientToAgent,
		"session/set_mode": ClientToAgent, "auth/login": ClientToAgent, "logout": ClientToAgent,
		MethodSessionUpdate: AgentToClient, MethodRequestPermission: AgentToClient, "fs/read_text_file": AgentToClient,
		"terminal/create": AgentToClient, "elicitation/create": AgentToClient,
		MethodCancelRequest: "", "mcp/message": "", "_zed.dev/x": "",
	}
	for m, want := range tests {
		if got := MethodSender(m); got != want {
			t.Errorf("MethodSender(%q) = %q, want %q", m, got, want)
		}
	}
}

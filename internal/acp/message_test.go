package acp

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDecodeLineValid(t *testing.T) {
	ts := time.Date(2026, 6, 2, 10, 0, 1, 7000000, time.UTC)
	tests := []struct {
		name string
		line string
		want []Message // Raw is checked separately
	}{
		{
			name: "request",
			line: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
			want: []Message{{ID: raw(`0`), Method: "initialize", Params: raw(`{"protocolVersion":1}`)}},
		},
		{
			name: "string id and surrounding space",
			line: " \t{ \"id\" : \"a-1\" , \"method\" : \"x/y\" , \"jsonrpc\" : \"2.0\" }\r ",
			want: []Message{{ID: raw(`"a-1"`), Method: "x/y"}},
		},
		{
			name: "notification",
			line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
			want: []Message{{Method: "session/cancel", Params: raw(`{"sessionId":"s"}`)}},
		},
		{
			name: "result null is a result",
			line: `{"jsonrpc":"2.0","id":2,"result":null}`,
			want: []Message{{ID: raw(`2`), Result: raw(`null`)}},
		},
		{
			name: "error response with null id",
			line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"at":3}}}`,
			want: []Message{{ID: raw(`null`), Error: &RPCError{Code: -32700, Message: "Parse error", Data: raw(`{"at":3}`)}}},
		},
		{
			name: "escaped method name",
			line: `{"jsonrpc":"2.0","method":"session\/update","params":{}}`,
			want: []Message{{Method: "session/update", Params: raw(`{}`)}},
		},
		{
			name: "unknown members ignored",
			line: `{"jsonrpc":"2.0","method":"_zed.dev/x","extra":[1,{"a":"}"}]}`,
			want: []Message{{Method: "_zed.dev/x"}},
		},
		{
			name: "batch",
			line: `[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","id":"1","result":{}}]`,
			want: []Message{{ID: raw(`1`), Method: "a"}, {ID: raw(`"1"`), Result: raw(`{}`)}},
		},
		{
			name: "transcript envelope",
			line: `{"dir":"a2c","ts":"2026-06-02T10:00:01.007Z","msg":{"jsonrpc":"2.0","id":1,"result":{}}}`,
			want: []Message{{ID: raw(`1`), Result: raw(`{}`), Dir: AgentToClient, Time: ts}},
		},
		{
			name: "transcript envelope holding a batch",
			line: `{"msg":[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}],"dir":"c2a"}`,
			want: []Message{{Method: "a", Dir: ClientToAgent}, {Method: "b", Dir: ClientToAgent}},
		},
		{
			name: "a message with a msg member is still a message",
			line: `{"jsonrpc":"2.0","method":"a","msg":1}`,
			want: []Message{{Method: "a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeLine([]byte(tt.line))
			if err != nil {
				t.Fatalf("DecodeLine: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d messages, want %d", len(got), len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if string(g.ID) != string(w.ID) || g.Method != w.Method || string(g.Params) != string(w.Params) ||
					string(g.Result) != string(w.Result) || g.Dir != w.Dir || !g.Time.Equal(w.Time) {
					t.Errorf("message %d = %+v, want %+v", i, g, w)
				}
				if (g.Error == nil) != (w.Error == nil) || g.Error != nil &&
					(g.Error.Code != w.Error.Code || g.Error.Message != w.Error.Message || string(g.Error.Data) != string(w.Error.Data)) {
					t.Errorf("message %d error = %+v, want %+v", i, g.Error, w.Error)
				}
				if !strings.Contains(tt.line, string(g.Raw)) || g.Raw[0] != '{' {
					t.Errorf("message %d Raw %q is not a piece of the line", i, g.Raw)
				}
			}
		})
	}
}

func raw(s string) []byte { return []byte(s) }

func TestDecodeLineRawIsExactAndOwned(t *testing.T) {
	line := []byte(`  {"jsonrpc":"2.0",  "method":"a","params":{"k" : [1, 2]}}  `)
	msgs, err := DecodeLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(msgs[0].Raw), strings.TrimSpace(string(line)); got != want {
		t.Errorf("Raw = %q, want %q", got, want)
	}
	for i := range line {
		line[i] = 'X'
	}
	if string(msgs[0].Params) != `{"k" : [1, 2]}` {
		t.Errorf("Params changed with the caller's buffer: %q", msgs[0].Params)
	}
}

func TestDecodeLineErrors(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	tests := []struct {
		name string
		line string
		code int
		msg  string // substring
		n    int    // messages still returned
	}{
		{"empty", "  ", CodeParseError, "empty line", 0},
		{"not json", "hello", CodeParseError, "not valid JSON", 0},
		{"truncated", `{"jsonrpc":"2.0"`, CodeParseError, "not valid JSON: unexpected end of JSON input", 0},
		{"invalid utf-8 in a string", "{\"jsonrpc\":\"2.0\",\"method\":\"a\xff\"}", CodeParseError, "not valid UTF-8 (first bad byte at offset 28)", 0},
		{"too deep", deep, CodeParseError, "nested 10001 levels deep, over the limit of 10000", 0},
		{"scalar", `42`, CodeInvalidRequest, "a line must hold a JSON object or array, not a number", 0},
		{"empty batch", `[ ]`, CodeInvalidRequest, "batch is empty", 0},
		{"no jsonrpc", `{"method":"a"}`, CodeInvalidRequest, `"jsonrpc" is missing; it must be "2.0"`, 0},
		{"wrong jsonrpc", `{"jsonrpc":2.0,"method":"a"}`, CodeInvalidRequest, `"jsonrpc" must be "2.0", not 2.0`, 0},
		{"method not string", `{"jsonrpc":"2.0","method":7}`, CodeInvalidRequest, `"method" must be a string, not a number`, 0},
		{"method empty", `{"jsonrpc":"2.0","method":""}`, CodeInvalidRequest, `"method" must not be empty`, 0},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"a"}`, CodeInvalidRequest, `"id" must be a number or string, not an object`, 0},
		{"id bool", `{"jsonrpc":"2.0","id":true,"result":1}`, CodeInvalidRequest, `"id" must be a number or string, not a boolean`, 0},
		{"request null id", `{"jsonrpc":"2.0","id":null,"method":"a"}`, CodeInvalidRequest, "null is allowed only in error responses", 0},
		{"result null id", `{"jsonrpc":"2.0","id":null,"result":{}}`, CodeInvalidRequest, "null is allowed only in error responses", 0},
		{"params scalar", `{"jsonrpc":"2.0","method":"a","params":"x"}`, CodeInvalidRequest, `"params" must be an object or array, not a string`, 0},
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"a","result":{}}`, CodeInvalidRequest, `cannot have "result" or "error"`, 0},
		{"nothing", `{"jsonrpc":"2.0"}`, CodeInvalidRequest, `no "method", "result" or "error"`, 0},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, CodeInvalidRequest, `response is missing "id"`, 0},
		{"both result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, CodeInvalidRequest, `both "result" and "error"`, 0},
		{"neither result nor error", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, `neither "result" nor "error"`, 0},
		{"error not object", `{"jsonrpc":"2.0","id":1,"error":"bad"}`, CodeInvalidRequest, `"error" must be an object, not a string`, 0},
		{"error code fractional", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, CodeInvalidRequest, `"error.code" must be an integer, not 1.5`, 0},
		{"error message missing", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, CodeInvalidRequest, `"error.message" is missing`, 0},
		{"batch element", `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","method":"c"},{"method":"d"}]`, CodeInvalidRequest, `batch element 3: "jsonrpc" is missing`, 3},
		{"batch element not object", `[{"jsonrpc":"2.0","method":"a"},[]]`, CodeInvalidRequest, `batch element 1: must be a JSON-RPC message object, not an array`, 1},
		{"envelope bad dir", `{"dir":"up","msg":{"jsonrpc":"2.0","method":"a"}}`, CodeInvalidRequest, `"dir" must be "c2a" or "a2c", not "up"`, 0},
		{"envelope bad ts", `{"ts":"yesterday","msg":{"jsonrpc":"2.0","method":"a"}}`, CodeInvalidRequest, `"ts" must be an RFC 3339 time, not "yesterday"`, 0},
		{"envelope bad msg", `{"dir":"c2a","msg":"hi"}`, CodeInvalidRequest, `"msg" must be a JSON-RPC message or batch, not a string`, 0},
		{"envelope invalid inner", `{"dir":"c2a","msg":{"jsonrpc":"2.0"}}`, CodeInvalidRequest, `msg: not a JSON-RPC message`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := DecodeLine([]byte(tt.line))
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error = %v (%T), want *LineError", err, err)
			}
			if le.Code != tt.code || !strings.Contains(le.Message, tt.msg) {
				t.Errorf("got %d %q, want %d containing %q", le.Code, le.Message, tt.code, tt.msg)
			}
			if len(msgs) != tt.n {
				t.Errorf("got %d messages with the error, want %d", len(msgs), tt.n)
			}
		})
	}
}

// A successful DecodeLine must return a nil error interface, not a typed nil.
func TestDecodeLineNilError(t *testing.T) {
	if _, err := DecodeLine([]byte(`{"jsonrpc":"2.0","method":"a"}`)); err != nil {
		t.Fatalf("err = %#v", err)
	}
}

func TestMessageKinds(t *testing.T) {
	msgs, err := DecodeLine([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":0}]`))
	if err != nil {
		t.Fatal(err)
	}
	if !msgs[0].IsRequest() || !msgs[1].IsNotification() || !msgs[2].IsResponse() {
		t.Errorf("kinds wrong: %+v", msgs)
	}
}

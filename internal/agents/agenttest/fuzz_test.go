package agenttest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzRequestDecoders feeds arbitrary request bodies (what a CLI sends the model server) to
// the decoders tests read them with. Properties: no panic; decoding is deterministic; each
// decoder answers only for its own API; and a well-formed tool_result built from the fuzzed
// strings decodes back to exactly those values.
func FuzzRequestDecoders(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}]}`), "id", "content", true)
	f.Add([]byte(`{"input":[{"type":"function_call_output","call_id":"c","output":"o"}]}`), "", "", false)
	f.Add([]byte(`{"contents":[{"parts":[{"functionResponse":{"name":"n","response":{}}}]}]}`), "x\"y", "\u2028", false)
	f.Add([]byte(`{"tools":[{"functionDeclarations":[{"name":1}]}]}`), "a", "b", true)
	f.Fuzz(func(t *testing.T, body []byte, id, content string, isErr bool) {
		for _, api := range []string{"anthropic", "openai", "gemini", ""} {
			r := Request{API: api, Body: body}
			a, b := r.ToolResults(), r.ToolResults()
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("ToolResults not deterministic: %v vs %v", a, b)
			}
			if api != "anthropic" && a != nil {
				t.Fatalf("ToolResults for API %q = %v", api, a)
			}
			if api != "openai" && r.FunctionCallOutputs() != nil {
				t.Fatalf("FunctionCallOutputs for API %q", api)
			}
			if api != "gemini" && r.FunctionResponses() != nil {
				t.Fatalf("FunctionResponses for API %q", api)
			}
			_ = r.ToolNames()
			_ = r.JSON()
		}

		msg := map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": isErr, "content": content}}}}}
		raw, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		// encoding/json replaces invalid UTF-8; compare with what a round trip keeps.
		var back struct{ S []string }
		if err := json.Unmarshal(mustMarshal(t, map[string]any{"S": []string{id, content}}), &back); err != nil {
			t.Fatal(err)
		}
		got := Request{API: "anthropic", Body: raw}.ToolResults()
		want := []ToolResult{{ToolUseID: back.S[0], IsError: isErr, Content: back.S[1]}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip: got %#v, want %#v", got, want)
		}
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

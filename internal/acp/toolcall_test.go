package acp

import (
	"reflect"
	"testing"
)

func TestDecodeToolCalls(t *testing.T) {
	tests := []struct {
		name   string
		update string
		want   *ToolCallUpdate // Raw-ish fields compared as strings
		warns  []Warning
	}{
		{
			name:   "tool_call",
			update: `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read","kind":"read","status":"pending","name":"Read","locations":[{"path":"/a","line":3}],"rawInput":{"p":"/a"},"_meta":{"claudeCode":{"toolName":"Read"}}}`,
			want: &ToolCallUpdate{ToolCallID: "c1", Create: true, Title: ptr("Read"), Kind: ptr("read"), Status: ptr("pending"), Name: ptr("Read"),
				Locations: raw(`[{"path":"/a","line":3}]`), RawInput: raw(`{"p":"/a"}`), Meta: raw(`{"claudeCode":{"toolName":"Read"}}`)},
		},
		{
			name:   "update with only status",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}`,
			want:   &ToolCallUpdate{ToolCallID: "c1", Status: ptr("completed")},
		},
		{
			name:   "nulls mean not sent",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":null,"kind":null,"status":null,"content":null,"locations":null,"rawInput":null,"rawOutput":null,"_meta":null}`,
			want:   &ToolCallUpdate{ToolCallID: "c1"},
		},
		{
			name:   "wrapped content kept byte for byte",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[ {"type":"content","content":{"type":"text","text":"x"}} , {"type":"diff","path":"/a","oldText":null,"newText":"b"} ]}`,
			want:   &ToolCallUpdate{ToolCallID: "c1", Content: raw(`[ {"type":"content","content":{"type":"text","text":"x"}} , {"type":"diff","path":"/a","oldText":null,"newText":"b"} ]`)},
		},
		{
			name:   "bare content blocks wrapped",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[{"type":"text","text":"x"},{"type":"terminal","terminalId":"t"},{"type":"image","data":"AA","mimeType":"image/png"}]}`,
			want: &ToolCallUpdate{ToolCallID: "c1", Content: raw(`[{"type":"content","content":{"type":"text","text":"x"}},{"type":"terminal","terminalId":"t"},` +
				`{"type":"content","content":{"type":"image","data":"AA","mimeType":"image/png"}}]`)},
		},
		{
			name:   "single bare block not in an array",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":{"type":"text","text":"x"}}`,
			want:   &ToolCallUpdate{ToolCallID: "c1", Content: raw(`[{"type":"content","content":{"type":"text","text":"x"}}]`)},
			warns:  []Warning{{"update.content", "must be an array, not an object; treated as a list of one"}},
		},
		{
			name:   "non-object content items dropped",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":["x",{"type":"_custom"}]}`,
			want:   &ToolCallUpdate{ToolCallID: "c1", Content: raw(`[{"type":"_custom"}]`)},
			warns:  []Warning{{"update.content[0]", "must be an object, not a string; dropped"}},
		},
		{
			name:   "wrong types ignored",
			update: `{"sessionUpdate":"tool_call","toolCallId":"c1","title":5,"kind":["read"],"locations":{"path":"/a"},"content":"text"}`,
			want:   &ToolCallUpdate{ToolCallID: "c1", Create: true},
			warns: []Warning{
				{"update.title", "must be a string, not a number; ignored"},
				{"update.kind", "must be a string, not an array; ignored"},
				{"update.content", "must be an array, not a string; ignored"},
				{"update.locations", "must be an array, not an object; ignored"},
			},
		},
		{
			name:   "missing toolCallId",
			update: `{"sessionUpdate":"tool_call_update","status":"completed"}`,
			warns:  []Warning{{"update.toolCallId", "missing; the tool call cannot be tracked"}},
		},
		{
			name:   "toolCallId number",
			update: `{"sessionUpdate":"tool_call","toolCallId":7}`,
			warns:  []Warning{{"update.toolCallId", "must be a string, not a number; the tool call cannot be tracked"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, warns, err := DecodeSessionNotification(params(tt.update))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(toolStrings(n.Update.ToolCall), toolStrings(tt.want)) {
				t.Errorf("tool call = %+v\nwant %+v", toolStrings(n.Update.ToolCall), toolStrings(tt.want))
			}
			if !reflect.DeepEqual(warns, tt.warns) {
				t.Errorf("warnings = %q\nwant %q", warns, tt.warns)
			}
		})
	}
}

// toolStrings flattens a ToolCallUpdate so pointers and raw JSON compare by content.
func toolStrings(tc *ToolCallUpdate) []string {
	if tc == nil {
		return nil
	}
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	r := func(b []byte) string {
		if b == nil {
			return "<nil>"
		}
		return string(b)
	}
	create := "false"
	if tc.Create {
		create = "true"
	}
	return []string{tc.ToolCallID, create, s(tc.Title), s(tc.Kind), s(tc.Status), s(tc.Name),
		r(tc.Content), r(tc.Locations), r(tc.RawInput), r(tc.RawOutput), r(tc.Meta)}
}

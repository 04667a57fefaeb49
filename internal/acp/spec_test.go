package acp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readTestdata decodes every line of a testdata file, failing on any bad line.
func readTestdata(t *testing.T, name string) []Message {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Message
	err = DecodeStream(f, 0, func(n int, msgs []Message, le *LineError) error {
		if le != nil {
			t.Fatalf("%s: %v", name, le)
		}
		out = append(out, msgs...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func one(t *testing.T, name string) Message {
	t.Helper()
	msgs := readTestdata(t, name)
	if len(msgs) != 1 {
		t.Fatalf("%s: %d messages", name, len(msgs))
	}
	return msgs[0]
}

func notification(t *testing.T, name string) (SessionNotification, []Warning) {
	t.Helper()
	m := one(t, name)
	if m.Method != MethodSessionUpdate {
		t.Fatalf("%s: method %q", name, m.Method)
	}
	n, warns, err := DecodeSessionNotification(m.Params)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n, warns
}

// TestSpecExamples decodes every example of shared/spec/acp.md kept in testdata/spec.
func TestSpecExamples(t *testing.T) {
	type summary struct {
		Kind, Plan, PlanType, Removed, Tool, Mode, Text string
		Entries                                         int
	}
	sum := func(u Update) summary {
		s := summary{Kind: u.Kind, Mode: u.ModeID}
		if u.Plan != nil {
			s.Plan, s.PlanType, s.Entries = u.Plan.PlanID, u.Plan.Type, len(u.Plan.Entries)
			s.Text = u.Plan.Markdown + u.Plan.URI
		}
		if u.PlanRemoved != nil {
			s.Removed = u.PlanRemoved.PlanID
		}
		if u.ToolCall != nil {
			s.Tool = u.ToolCall.ToolCallID
		}
		if u.Chunk != nil {
			s.Text = u.Chunk.Text
		}
		return s
	}
	updates := map[string]summary{
		"s07_agent_message_chunk":             {Kind: "agent_message_chunk", Text: "I'll analyze your code..."},
		"s09_envelope_meta":                   {Kind: "agent_message_chunk", Text: "Hello"},
		"s09_tool_call":                       {Kind: "tool_call", Tool: "call_001"},
		"s09_tool_call_update":                {Kind: "tool_call_update", Tool: "call_001"},
		"s09_usage_update":                    {Kind: "usage_update"},
		"s09_current_mode_update":             {Kind: "current_mode_update", Mode: "code"},
		"s09_available_commands_update":       {Kind: "available_commands_update"},
		"s10_1_plan":                          {Kind: "plan", Plan: "main", PlanType: "items", Entries: 3},
		"s10_1_plan_cleared":                  {Kind: "plan", Plan: "main", PlanType: "items"},
		"s10_2_plan_update_items":             {Kind: "plan_update", Plan: "plan-1", PlanType: "items", Entries: 1},
		"s10_2_plan_update_markdown":          {Kind: "plan_update", Plan: "implementation-plan", PlanType: "markdown", Text: "## Steps\n- [ ] Refactor module\n- [ ] Add tests"},
		"s10_2_plan_update_file":              {Kind: "plan_update", Plan: "design-doc", PlanType: "file", Text: "file:///home/user/project/plan.md"},
		"s10_2_plan_removed":                  {Kind: "plan_removed", Removed: "plan-1"},
		"s10_2_old_plan_update_id":            {Kind: "plan_update", Plan: "plan-1", PlanType: "items", Entries: 1},
		"s10_2_old_plan_removed_id":           {Kind: "plan_removed", Removed: "plan-1"},
		"s10_6_plan_mode_markdown":            {Kind: "plan_update", Plan: "plan-mode", PlanType: "markdown", Text: "# Plan\n\n1. Read the code\n2. Change it"},
		"s11_tool_call_full":                  {Kind: "tool_call", Tool: "call_002"},
		"s11_tool_call_update_nulls":          {Kind: "tool_call_update", Tool: "call_002"},
		"s12_1_mode_id":                       {Kind: "current_mode_update", Mode: "code"},
		"s12_2_bare_content_tool_call_update": {Kind: "tool_call_update", Tool: "call_003"},
	}
	for name, want := range updates {
		t.Run(name, func(t *testing.T) {
			n, warns := notification(t, "spec/"+name+".json")
			if got := sum(n.Update); got != want || len(warns) != 0 || n.SessionID != "sess_abc123def456" {
				t.Errorf("got %+v (warnings %v), want %+v", got, warns, want)
			}
		})
	}

	t.Run("meta", func(t *testing.T) {
		n, _ := notification(t, "spec/s09_envelope_meta.json")
		if string(n.Meta) != `{"requestId":"r-1"}` || !strings.Contains(string(n.Update.Meta), "traceparent") {
			t.Errorf("meta lost: %s / %s", n.Meta, n.Update.Meta)
		}
	})
	t.Run("s11 tool call fields", func(t *testing.T) {
		n, _ := notification(t, "spec/s11_tool_call_full.json")
		tc := n.Update.ToolCall
		if !tc.Create || *tc.Name != "Edit" || tc.RawOutput != nil || !strings.Contains(string(tc.Meta), "claudeCode") ||
			!strings.Contains(string(tc.Content), `"type":"diff"`) || string(tc.Locations) != `[{"path":"/home/user/project/main.py","line":12}]` {
			t.Errorf("tool call = %+v", toolStrings(tc))
		}
		n, _ = notification(t, "spec/s11_tool_call_update_nulls.json")
		if got := toolStrings(n.Update.ToolCall); !reflect.DeepEqual(got, []string{"call_002", "false", "<nil>", "<nil>", "failed", "<nil>", "<nil>", "<nil>", "<nil>", `{"error":"permission denied"}`, "<nil>"}) {
			t.Errorf("nulls not treated as not sent: %q", got)
		}
	})
	t.Run("s12 bare content wrapped", func(t *testing.T) {
		n, _ := notification(t, "spec/s12_2_bare_content_tool_call_update.json")
		want := `[{"type":"content","content":{"type":"text","text":"done"}},{"type":"diff","path":"/a","oldText":null,"newText":"x"}]`
		if got := string(n.Update.ToolCall.Content); got != want {
			t.Errorf("content = %s", got)
		}
		m := one(t, "spec/s12_2_bare_content_permission.json")
		p, err := DecodeRequestPermissionParams(m.Params)
		if err != nil || len(p.Warnings) != 0 || *p.ToolCall.Kind != "switch_mode" || len(p.Options) != 3 ||
			!strings.HasPrefix(string(p.ToolCall.Content), `[{"type":"content","content":{"type":"text","text":"## Implementation Plan`) {
			t.Errorf("permission = %+v, %v", p, err)
		}
	})
	t.Run("methods", func(t *testing.T) {
		ip, err := DecodeInitializeParams(one(t, "spec/s05_initialize_request.json").Params)
		if err != nil || ip.ProtocolVersion != 1 || ip.ClientInfo.Title != "My Client" || ip.PlanCapable {
			t.Errorf("initialize = %+v, %v", ip, err)
		}
		for _, f := range []string{"s05_initialize_plan_capability", "s12_5_plan_capabilities"} {
			ip, err := DecodeInitializeParams(one(t, "spec/"+f+".json").Params)
			if err != nil || !ip.PlanCapable {
				t.Errorf("%s: PlanCapable false (%v)", f, err)
			}
		}
		ir, err := DecodeInitializeResult(one(t, "spec/s05_initialize_response.json").Result)
		if err != nil || ir.AgentInfo.Name != "my-agent" {
			t.Errorf("initialize result = %+v, %v", ir, err)
		}
		ns, err := DecodeNewSessionParams(one(t, "spec/s06_session_new_request.json").Params)
		if err != nil || ns.Cwd != "/home/user/project" {
			t.Errorf("session/new = %+v, %v", ns, err)
		}
		nr, err := DecodeNewSessionResult(one(t, "spec/s06_session_new_response.json").Result)
		if err != nil || nr.SessionID != "sess_abc123def456" {
			t.Errorf("session/new result = %+v, %v", nr, err)
		}
		lp, err := DecodeLoadSessionParams(one(t, "spec/s06_session_load_request.json").Params)
		if err != nil || lp.SessionID != "sess_abc123def456" {
			t.Errorf("session/load = %+v, %v", lp, err)
		}
		if m := one(t, "spec/s12_3_load_result_null.json"); string(m.Result) != "null" || !m.IsResponse() {
			t.Errorf("result null = %+v", m)
		}
		pp, err := DecodeRequestPermissionParams(one(t, "spec/s08_request_permission.json").Params)
		if err != nil || pp.ToolCall.ToolCallID != "call_001" || len(pp.Options) != 2 {
			t.Errorf("permission = %+v, %v", pp, err)
		}
		for f, want := range map[string]PermissionOutcome{"s08_outcome_selected": {Outcome: "selected", OptionID: "allow-once"}, "s08_outcome_cancelled": {Outcome: "cancelled"}} {
			o, err := DecodePermissionOutcome(one(t, "spec/"+f+".json").Result)
			if err != nil || o != want {
				t.Errorf("%s = %+v, %v", f, o, err)
			}
		}
		cp, err := DecodeCancelParams(one(t, "spec/s07_session_cancel.json").Params)
		if err != nil || cp.SessionID != "sess_abc123def456" {
			t.Errorf("session/cancel = %+v, %v", cp, err)
		}
		cr, err := DecodeCancelRequestParams(one(t, "spec/s03_cancel_request.json").Params)
		if err != nil || string(cr.RequestID) != "5" {
			t.Errorf("$/cancel_request = %+v, %v", cr, err)
		}
		for _, f := range []string{"s07_prompt_request", "s07_prompt_response"} {
			one(t, "spec/"+f+".json")
		}
	})
}

// TestSchemaValidExamples decodes messages that validate against the official schemas (see
// testdata/README.md), so plandash accepts at least what the schema does.
func TestSchemaValidExamples(t *testing.T) {
	tests := map[string]func(t *testing.T, u Update){
		"unstable_plan": func(t *testing.T, u Update) { expectEqual(t, len(u.Plan.Entries), 3) },
		"unstable_plan_update_items": func(t *testing.T, u Update) {
			expectEqual(t, u.Plan.PlanID, "plan-1")
			expectEqual(t, u.Plan.Entries[0].Priority, "high")
		},
		"unstable_plan_update_markdown": func(t *testing.T, u Update) { expectEqual(t, u.Plan.Type, PlanMarkdown) },
		"unstable_plan_update_file":     func(t *testing.T, u Update) { expectEqual(t, u.Plan.URI, "file:///home/user/project/plan.md") },
		"unstable_plan_removed":         func(t *testing.T, u Update) { expectEqual(t, u.PlanRemoved.PlanID, "plan-1") },
		"unstable_plan_update_meta": func(t *testing.T, u Update) {
			expectEqual(t, string(u.Meta), `{"x.dev/seq":4}`)
			expectEqual(t, string(u.Plan.Meta), `{"x.dev/scope":"subagent"}`)
			expectEqual(t, string(u.Plan.Entries[0].Meta), `{"x.dev/origin":"todo-7"}`)
		},
		"v2_plan_update_cancelled": func(t *testing.T, u Update) {
			expectEqual(t, len(u.Plan.Entries), 2)
			expectEqual(t, u.Plan.Entries[0].Status, "cancelled")
		},
		"v2_custom_update": func(t *testing.T, u Update) {
			expectEqual(t, u.Kind, "_x.dev/foo")
			expectEqual(t, string(u.Raw), `{"sessionUpdate":"_x.dev/foo","bar":[1,2,3],"_meta":{"x.dev":{"v":1}}}`)
		},
	}
	for name, check := range tests {
		t.Run(name, func(t *testing.T) {
			n, warns := notification(t, "schema/"+name+".json")
			if len(warns) != 0 {
				t.Errorf("warnings: %v", warns)
			}
			check(t, n.Update)
		})
	}
}

func TestGoSDKExchange(t *testing.T) {
	plain := readTestdata(t, "gosdk_exchange.jsonl")
	rec := readTestdata(t, "gosdk_transcript.jsonl")
	if len(plain) != 16 || len(rec) != 16 {
		t.Fatalf("got %d and %d frames, want 16", len(plain), len(rec))
	}
	kinds := map[string]int{}
	for i, m := range rec {
		if string(m.Raw) != string(plain[i].Raw) || m.Dir == "" || m.Time.IsZero() {
			t.Errorf("frame %d: transcript differs from plain exchange", i)
		}
		if m.Method == MethodSessionUpdate {
			n, warns, err := DecodeSessionNotification(m.Params)
			if err != nil || len(warns) != 0 || n.SessionID != "sess_b0c39167111088253d25ea18" {
				t.Errorf("frame %d: %v %v", i, err, warns)
			}
			kinds[n.Update.Kind]++
		}
	}
	want := map[string]int{"agent_message_chunk": 4, "tool_call": 2, "tool_call_update": 2}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("update kinds = %v, want %v", kinds, want)
	}
	ip, err := DecodeInitializeParams(plain[0].Params)
	if err != nil || ip.ProtocolVersion != 1 || ip.PlanCapable {
		t.Errorf("initialize = %+v, %v", ip, err)
	}
	pp, err := DecodeRequestPermissionParams(plain[11].Params)
	if err != nil || pp.ToolCall.ToolCallID != "call_2" || len(pp.Options) != 2 || len(pp.Warnings) != 0 {
		t.Errorf("permission = %+v, %v", pp, err)
	}
	o, err := DecodePermissionOutcome(plain[12].Result)
	if err != nil || o != (PermissionOutcome{Outcome: "selected", OptionID: "allow"}) {
		t.Errorf("outcome = %+v, %v", o, err)
	}
}

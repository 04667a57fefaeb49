package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func params(update string) json.RawMessage {
	return json.RawMessage(`{"sessionId":"s1","update":` + update + `}`)
}

func ptr(s string) *string { return &s }

func TestDecodeSessionNotificationPlans(t *testing.T) {
	tests := []struct {
		name   string
		update string
		want   *PlanContent // Raw not compared
		warns  []Warning
	}{
		{
			name:   "v1 plan",
			update: `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"},{"content":"b","priority":"low","status":"completed","_meta":{"k":1}}]}`,
			want: &PlanContent{PlanID: "main", Type: "items", V1: true, Entries: []PlanEntry{
				{Content: "a", Priority: "high", Status: "pending"},
				{Content: "b", Priority: "low", Status: "completed", Meta: raw(`{"k":1}`)},
			}},
		},
		{
			name:   "v1 plan cleared",
			update: `{"sessionUpdate":"plan","entries":[]}`,
			want:   &PlanContent{PlanID: "main", Type: "items", V1: true, Entries: []PlanEntry{}},
		},
		{
			name:   "v1 plan without entries is not applied",
			update: `{"sessionUpdate":"plan"}`,
			warns:  []Warning{{"update.entries", "missing; the plan was not applied"}},
		},
		{
			name: "invalid entries skipped",
			update: `{"sessionUpdate":"plan","entries":[` +
				`{"content":"ok","priority":"medium","status":"in_progress"},` +
				`"just text",` +
				`{"priority":"high","status":"pending"},` +
				`{"content":"c","priority":"urgent","status":"pending"},` +
				`{"content":"d","priority":"high","status":"done"},` +
				`{"content":5,"priority":"high","status":"pending"},` +
				`{"content":"e","priority":"high"},` +
				`{"content":"custom","priority":"_p1","status":"_blocked"},` +
				`{"content":"v2","priority":"low","status":"cancelled"}]}`,
			want: &PlanContent{PlanID: "main", Type: "items", V1: true, Entries: []PlanEntry{
				{Content: "ok", Priority: "medium", Status: "in_progress"},
				{Content: "custom", Priority: "_p1", Status: "_blocked"},
				{Content: "v2", Priority: "low", Status: "cancelled"},
			}},
			warns: []Warning{
				{"update.entries[1]", "must be an object, not a string; entry skipped"},
				{"update.entries[2].content", "missing; entry skipped"},
				{"update.entries[3].priority", `"urgent" is not a priority (high, medium, low or _custom); entry skipped`},
				{"update.entries[4].status", `"done" is not a status (pending, in_progress, completed, cancelled or _custom); entry skipped`},
				{"update.entries[5].content", "must be a string, not a number; entry skipped"},
				{"update.entries[6].status", "missing; entry skipped"},
			},
		},
		{
			name:   "plan_update items",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[{"content":"a","priority":"high","status":"pending"}],"_meta":{"m":2}}}`,
			want:   &PlanContent{PlanID: "p1", Type: "items", Entries: []PlanEntry{{Content: "a", Priority: "high", Status: "pending"}}, Meta: raw(`{"m":2}`)},
		},
		{
			name:   "plan_update old id key",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"items","id":"p1","entries":[]}}`,
			want:   &PlanContent{PlanID: "p1", Type: "items", Entries: []PlanEntry{}},
		},
		{
			name:   "planId wins over id",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"markdown","id":"old","planId":"new","content":"# x"}}`,
			want:   &PlanContent{PlanID: "new", Type: "markdown", Markdown: "# x"},
		},
		{
			name:   "plan_update file",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"file","planId":"d","uri":"file:///p.md"}}`,
			want:   &PlanContent{PlanID: "d", Type: "file", URI: "file:///p.md"},
		},
		{
			name:   "plan_update custom type kept",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"_x.dev/gantt","planId":"g","bars":[1]}}`,
			want:   &PlanContent{PlanID: "g", Type: "_x.dev/gantt"},
		},
		{
			name:   "plan_update future type kept",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"dag","planId":"g"}}`,
			want:   &PlanContent{PlanID: "g", Type: "dag"},
		},
		{
			name:   "plan_update without type kept as unknown",
			update: `{"sessionUpdate":"plan_update","plan":{"planId":"g"}}`,
			want:   &PlanContent{PlanID: "g"},
			warns:  []Warning{{"update.plan.type", "missing; kept as an unknown plan type"}},
		},
		{
			name:   "plan_update markdown without content",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"g","content":7}}`,
			warns:  []Warning{{"update.plan.content", "must be a string, not a number; the plan was not applied"}},
		},
		{
			name:   "plan_update items entry path",
			update: `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"g","entries":[{"content":"a","priority":"urgent","status":"pending"}]}}`,
			want:   &PlanContent{PlanID: "g", Type: "items", Entries: []PlanEntry{}},
			warns:  []Warning{{"update.plan.entries[0].priority", `"urgent" is not a priority (high, medium, low or _custom); entry skipped`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, warns, err := DecodeSessionNotification(params(tt.update))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if n.SessionID != "s1" || n.Update.Kind == "" || string(n.Update.Raw) != tt.update {
				t.Errorf("notification = %+v", n)
			}
			got := n.Update.Plan
			if got != nil {
				if string(got.Raw) == "" {
					t.Error("PlanContent.Raw not set")
				}
				c := *got
				c.Raw = nil
				got = &c
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("plan = %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(warns, tt.warns) {
				t.Errorf("warnings = %q\nwant %q", warns, tt.warns)
			}
		})
	}
}

func TestDecodeSessionNotificationVariants(t *testing.T) {
	tests := []struct {
		name   string
		update string
		check  func(t *testing.T, u Update)
		warns  []Warning
	}{
		{
			name:   "plan_removed",
			update: `{"sessionUpdate":"plan_removed","planId":"p1","_meta":{"a":1}}`,
			check: func(t *testing.T, u Update) {
				if u.PlanRemoved == nil || u.PlanRemoved.PlanID != "p1" || string(u.PlanRemoved.Meta) != `{"a":1}` {
					t.Errorf("PlanRemoved = %+v", u.PlanRemoved)
				}
			},
		},
		{
			name:   "plan_removed old id",
			update: `{"sessionUpdate":"plan_removed","id":"p1"}`,
			check: func(t *testing.T, u Update) {
				if u.PlanRemoved == nil || u.PlanRemoved.PlanID != "p1" {
					t.Errorf("PlanRemoved = %+v", u.PlanRemoved)
				}
			},
		},
		{
			name:   "agent message chunk",
			update: `{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"hi \u00e9"}}`,
			check: func(t *testing.T, u Update) {
				if u.Chunk == nil || u.Chunk.Text != "hi é" || u.Chunk.MessageID != "m1" || string(u.Chunk.Content) != `{"type":"text","text":"hi \u00e9"}` {
					t.Errorf("Chunk = %+v", u.Chunk)
				}
			},
		},
		{
			name:   "image chunk has no text",
			update: `{"sessionUpdate":"user_message_chunk","content":{"type":"image","data":"AAAA","mimeType":"image/png"}}`,
			check: func(t *testing.T, u Update) {
				if u.Chunk == nil || u.Chunk.Text != "" || u.Chunk.Content == nil {
					t.Errorf("Chunk = %+v", u.Chunk)
				}
			},
		},
		{
			name:   "thought chunk without content",
			update: `{"sessionUpdate":"agent_thought_chunk"}`,
			check: func(t *testing.T, u Update) {
				if u.Chunk != nil {
					t.Errorf("Chunk = %+v", u.Chunk)
				}
			},
			warns: []Warning{{"update.content", "missing; chunk ignored"}},
		},
		{
			name:   "mode update",
			update: `{"sessionUpdate":"current_mode_update","currentModeId":"code"}`,
			check:  func(t *testing.T, u Update) { expectEqual(t, u.ModeID, "code") },
		},
		{
			name:   "mode update docs spelling",
			update: `{"sessionUpdate":"current_mode_update","modeId":"architect"}`,
			check:  func(t *testing.T, u Update) { expectEqual(t, u.ModeID, "architect") },
		},
		{
			name:   "mode update without mode",
			update: `{"sessionUpdate":"current_mode_update"}`,
			check:  func(t *testing.T, u Update) { expectEqual(t, u.ModeID, "") },
			warns:  []Warning{{"update.currentModeId", "missing"}},
		},
		{
			name:   "session info title",
			update: `{"sessionUpdate":"session_info_update","title":"Fix bug"}`,
			check:  func(t *testing.T, u Update) { expectEqual(t, *u.Info.Title, "Fix bug") },
		},
		{
			name:   "session info title cleared",
			update: `{"sessionUpdate":"session_info_update","title":null}`,
			check:  func(t *testing.T, u Update) { expectEqual(t, *u.Info.Title, "") },
		},
		{
			name:   "session info without title",
			update: `{"sessionUpdate":"session_info_update","updatedAt":"2026-01-01T00:00:00Z"}`,
			check: func(t *testing.T, u Update) {
				if u.Info == nil || u.Info.Title != nil {
					t.Errorf("Info = %+v", u.Info)
				}
			},
		},
		{
			name:   "known variant plandash does not model",
			update: `{"sessionUpdate":"usage_update","used":1,"size":2}`,
			check:  func(t *testing.T, u Update) { expectEqual(t, u.Kind, "usage_update") },
		},
		{
			name:   "custom variant",
			update: `{"sessionUpdate":"_x.dev/foo","bar":1,"_meta":{"z":true}}`,
			check: func(t *testing.T, u Update) {
				expectEqual(t, u.Kind, "_x.dev/foo")
				expectEqual(t, string(u.Meta), `{"z":true}`)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, warns, err := DecodeSessionNotification(params(tt.update))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if string(n.Update.Raw) != tt.update {
				t.Errorf("Raw = %s", n.Update.Raw)
			}
			tt.check(t, n.Update)
			if !reflect.DeepEqual(warns, tt.warns) {
				t.Errorf("warnings = %q\nwant %q", warns, tt.warns)
			}
		})
	}
}

func expectEqual[T comparable](t *testing.T, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDecodeSessionNotificationErrors(t *testing.T) {
	tests := []struct {
		name   string
		params string
		path   string
		msg    string // substring
	}{
		{"missing", ``, "params", "missing"},
		{"array", `[1]`, "params", "must be an object, not an array"},
		{"not json", `{"sessionId":`, "params", "not valid JSON"},
		{"bad utf-8", "{\"sessionId\":\"\xc3\",\"update\":{}}", "params", "not valid UTF-8"},
		{"no session id", `{"update":{"sessionUpdate":"plan","entries":[]}}`, "sessionId", "missing"},
		{"session id number", `{"sessionId":1,"update":{"sessionUpdate":"plan","entries":[]}}`, "sessionId", "must be a string, not a number"},
		{"no update", `{"sessionId":"s"}`, "update", "missing"},
		{"update string", `{"sessionId":"s","update":"plan"}`, "update", "must be an object, not a string"},
		{"no sessionUpdate", `{"sessionId":"s","update":{}}`, "update.sessionUpdate", "missing"},
		{"sessionUpdate null", `{"sessionId":"s","update":{"sessionUpdate":null}}`, "update.sessionUpdate", "must be a string, not null"},
		{"sessionUpdate empty", `{"sessionId":"s","update":{"sessionUpdate":""}}`, "update.sessionUpdate", "must not be empty"},
		{"plan_update without plan", `{"sessionId":"s","update":{"sessionUpdate":"plan_update"}}`, "update.plan", "missing"},
		{"plan_update without id", `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","entries":[]}}}`, "update.plan.planId", "cannot be placed"},
		{"plan_update id number", `{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","id":3,"entries":[]}}}`, "update.plan.id", "must be a string, not a number"},
		{"plan_removed without id", `{"sessionId":"s","update":{"sessionUpdate":"plan_removed"}}`, "update.planId", "cannot be placed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeSessionNotification(json.RawMessage(tt.params))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error = %v (%T), want *DecodeError", err, err)
			}
			if de.Path != tt.path || !strings.Contains(de.Message, tt.msg) || de.Code() != CodeInvalidParams {
				t.Errorf("got %q %q, want path %q and %q", de.Path, de.Message, tt.path, tt.msg)
			}
		})
	}
}

func TestDecodeSessionNotificationMeta(t *testing.T) {
	p := `{"sessionId":"s","_meta":{"traceparent":"t"},"update":{"sessionUpdate":"plan","_meta":{"u":1},"entries":[{"content":"a","priority":"high","status":"pending","_meta":{"e":[1,2]}}]}}`
	n, _, err := DecodeSessionNotification(json.RawMessage(p))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{string(n.Meta), `{"traceparent":"t"}`},
		{string(n.Update.Meta), `{"u":1}`},
		{string(n.Update.Plan.Meta), `{"u":1}`},
		{string(n.Update.Plan.Entries[0].Meta), `{"e":[1,2]}`},
	} {
		if c.got != c.want {
			t.Errorf("meta = %s, want %s", c.got, c.want)
		}
	}
}

func TestDecodeSessionNotificationDeepMeta(t *testing.T) {
	for _, depth := range []int{9990, 10_000, 100_000} {
		deep := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
		p := `{"sessionId":"s","update":{"sessionUpdate":"_x","_meta":` + deep + `}}`
		n, _, err := DecodeSessionNotification(json.RawMessage(p))
		if depth+2 <= maxDepth {
			if err != nil || n.Update.Kind != "_x" {
				t.Errorf("depth %d: %v", depth, err)
			}
			continue
		}
		var de *DecodeError
		if !errors.As(err, &de) || !strings.Contains(de.Message, fmt.Sprintf("nested %d levels deep, over the limit of 10000", depth+2)) {
			t.Errorf("depth %d: error = %v", depth, err)
		}
	}
}

func TestDecodeSessionNotificationLargePlan(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[`)
	for i := range 10_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"content":"step %d","priority":"medium","status":"pending"}`, i)
	}
	b.WriteString(`]}}`)
	n, warns, err := DecodeSessionNotification(json.RawMessage(b.String()))
	if err != nil || len(warns) != 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	if got := len(n.Update.Plan.Entries); got != 10_000 || n.Update.Plan.Entries[9999].Content != "step 9999" {
		t.Fatalf("got %d entries", got)
	}
}

// Results point into a private copy, so the caller may reuse its buffer.
func TestDecodeSessionNotificationOwnsBytes(t *testing.T) {
	p := []byte(`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending","_meta":{"k":"v"}}]}}`)
	n, _, err := DecodeSessionNotification(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p {
		p[i] = '#'
	}
	if string(n.Update.Plan.Entries[0].Meta) != `{"k":"v"}` || n.Update.Raw[0] != '{' {
		t.Errorf("results alias the caller's buffer")
	}
}

// TestMessageSessionNotification: a message not made by DecodeLine, or whose params were
// replaced since, has its params checked as DecodeSessionNotification checks them.
func TestMessageSessionNotification(t *testing.T) {
	good := `{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}`
	msgs, err := DecodeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":` + good + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, _, err := msgs[0].SessionNotification(); err != nil || n.SessionID != "s" {
		t.Fatalf("decoded line: %+v, %v", n, err)
	}
	for _, params := range []string{`{"sessionId":"s","update":`, "{\"sessionId\":\"\xff\"}", `[1]`, `null`, ``} {
		for _, m := range []Message{{Params: json.RawMessage(params)}, {Params: json.RawMessage(params), checked: msgs[0].Params}} {
			_, _, err := m.SessionNotification()
			_, _, want := DecodeSessionNotification(json.RawMessage(params))
			if err == nil || err.Error() != want.Error() {
				t.Errorf("params %q: error %v, want %v", params, err, want)
			}
		}
	}
}

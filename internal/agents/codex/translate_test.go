package codex

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/plans"
)

// realThread is the thread id of testdata/exec_update_plan.jsonl, a rollout the real Codex CLI
// 0.169.0 wrote (codex exec against agenttest's scripted model: update_plan, an unsupported
// shell call, then an answer with a <proposed_plan> block).
const realThread = "01a20aa7-d7b6-7ff1-af70-8cdc9cdb7757"

// TestTranslateRealRollout applies a real rollout through a real plans.Service on SQLite.
func TestTranslateRealRollout(t *testing.T) {
	ctx := context.Background()
	lines, bad := DecodeAll(fixture(t, "exec_update_plan.jsonl"))
	if len(bad) != 0 || len(lines) != 22 {
		t.Fatalf("decoded %d lines, errors %v", len(lines), bad)
	}
	p := newPlans(t)
	tr := NewTranslator("/x/sessions/2026/11/23/rollout-2026-11-23T23-05-01-"+realThread+".jsonl", "devbox")
	msgs := tr.Translate(lines)
	if err := ApplyTo(p, nil)(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	d, err := p.Session(ctx, SessionKey(realThread))
	if err != nil {
		t.Fatal(err)
	}
	if d.Session.Name() != "Codex" || !strings.HasSuffix(d.Session.Cwd, "/project") {
		t.Errorf("session %+v", d.Session)
	}
	// The last token_count: the session's totals, the last response's context and the window,
	// as Codex 0.169.0 wrote them; the model from turn_context. Read from the rollout: "from
	// its transcript".
	if u := d.Session.Usage; u == nil || u.Model != "gpt-5" || u.InputTokens != 30 || u.OutputTokens != 30 || u.Used != 20 || u.Size != 258400 {
		t.Errorf("usage %+v", d.Session.Usage)
	}
	if !reflect.DeepEqual(d.Session.Via, []string{plans.ViaTranscript}) {
		t.Errorf("via %q", d.Session.Via)
	}
	items := planByID(t, d, PlanItems)
	var got []string
	for _, e := range items.Entries {
		got = append(got, e.Content+"="+e.Status)
	}
	if want := []string{"Read config loader=completed", "Add env override=in_progress"}; !reflect.DeepEqual(got, want) || items.Kind != plans.KindItems {
		t.Errorf("update_plan plan: %v kind %s", got, items.Kind)
	}
	if !strings.Contains(string(items.Meta), `"explanation":"first cut"`) {
		t.Errorf("explanation not kept in _meta: %s", items.Meta)
	}
	prop := planByID(t, d, PlanProposed)
	if prop.Kind != plans.KindMarkdown || prop.Markdown != "# Env override\n\n1. Read\n2. Write" || prop.Revision != 1 {
		t.Errorf("proposed plan: kind %s rev %d %q", prop.Kind, prop.Revision, prop.Markdown)
	}
	if len(d.ToolCalls) != 1 || d.ToolCalls[0].ID != "toolu_agenttest_0002" || d.ToolCalls[0].Status != "completed" ||
		d.ToolCalls[0].Kind != "execute" || d.ToolCalls[0].Title != "shell: echo hi" {
		t.Errorf("tool calls (update_plan must not be one): %+v", d.ToolCalls)
	}
	kinds := map[string]string{}
	for _, a := range d.Activity {
		kinds[a.Kind] += a.Text + string(a.Raw) + "|"
	}
	for kind, want := range map[string]string{"prompt": "plan the env override", "agent_message_chunk": "Here it is",
		"agent_thought_chunk": "Plan: first cut", "_codex_turn": `"completed"`} {
		if !strings.Contains(kinds[kind], want) {
			t.Errorf("activity %s = %q, want %q (all %v)", kind, kinds[kind], want, kinds)
		}
	}
	if strings.Contains(kinds["prompt"], "environment_context") {
		t.Errorf("injected context shown as a prompt: %q", kinds["prompt"])
	}
}

// TestTranslateTable covers the line shapes one at a time.
func TestTranslateTable(t *testing.T) {
	meta := `{"type":"session_meta","payload":{"id":"t1","cwd":"/w"}}`
	tests := []struct {
		name  string
		lines []string
		want  []string // substrings of the batch
		none  []string // must not appear
	}{
		{"meta announces", []string{meta}, []string{`"initialize"`, `"session/new"`, `"cwd":"/w"`, `"agentSessionId":"t1"`, `"sessionId":"codex:t1"`}, nil},
		{"update_plan", []string{meta, `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","call_id":"c1","arguments":"{\"plan\":[{\"step\":\"A\",\"status\":\"inProgress\"},{\"step\":\"B\",\"status\":\"weird status\"}]}"}}`},
			[]string{`"plan_update"`, `"planId":"plan"`, `"status":"in_progress"`, `"status":"_weird_status"`}, []string{`"tool_call"`}},
		{"empty update_plan retires", []string{meta, `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","call_id":"c1","arguments":"{\"plan\":[]}"}}`},
			[]string{`"plan_removed"`}, nil},
		{"bad update_plan kept raw", []string{meta, `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","call_id":"c1","arguments":"nope"}}`},
			[]string{`"_codex_rollout"`}, []string{`"plan_update"`}},
		{"update_plan output is no tool result", []string{meta,
			`{"type":"response_item","payload":{"type":"function_call","name":"update_plan","call_id":"c1","arguments":"{\"plan\":[{\"step\":\"A\",\"status\":\"pending\"}]}"}}`,
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Plan updated"}}`},
			[]string{`"plan_update"`}, []string{`tool_call_update`}},
		{"failed command", []string{meta, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":{"content":"x","success":false}}}`},
			[]string{`"tool_call_update"`, `"status":"failed"`}, nil},
		{"apply_patch custom call", []string{meta, `{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c3","input":"*** Begin Patch"}}`},
			[]string{`"kind":"edit"`, `"toolCallId":"c3"`}, nil},
		{"plan item and message once", []string{meta,
			`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"<proposed_plan>\n# P\n</proposed_plan>"}]}}`,
			`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Plan","text":"# P"}}}`},
			[]string{`"planId":"proposed"`, `"content":"# P"`}, nil},
		{"old user_message", []string{meta, `{"type":"event_msg","payload":{"type":"user_message","message":"do it"}}`},
			[]string{`"session/prompt"`, `"text":"do it"`}, nil},
		{"turn aborted", []string{meta, `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`},
			[]string{`"event":"aborted"`, `"reason":"interrupted"`}, nil},
		{"noise passed over", []string{meta, `{"type":"event_msg","payload":{"type":"token_count"}}`, `{"type":"world_state","payload":{}}`},
			nil, []string{"token_count", "world_state"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var lines []Line
			for i, s := range tc.lines {
				l, err := DecodeLine([]byte(s), i+1)
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, l)
			}
			var all strings.Builder
			for _, m := range NewTranslator("", "h").Translate(lines) {
				if !json.Valid(m) {
					t.Fatalf("invalid message %s", m)
				}
				all.Write(m)
				all.WriteByte('\n')
			}
			s := all.String()
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("missing %s in\n%s", w, s)
				}
			}
			if n := strings.Count(s, `"plan_update"`); n > 1 {
				t.Errorf("%d plan updates, want at most 1:\n%s", n, s)
			}
			for _, n := range tc.none {
				if strings.Contains(s, n) {
					t.Errorf("unexpected %s in\n%s", n, s)
				}
			}
		})
	}
}

func TestThreadIDFromPath(t *testing.T) {
	for in, want := range map[string]string{
		"/s/2026/11/23/rollout-2026-11-23T23-05-01-" + realThread + ".jsonl": realThread,
		"rollout-x.jsonl": "", "/a/b.jsonl": "", "rollout-2026-11-23T23-05-01-abc.json": "",
	} {
		if got := ThreadIDFromPath(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func TestDecodeLineErrors(t *testing.T) {
	for _, s := range []string{``, `[]`, `{"type":1}`, `{"a":`, "{\"type\":\"\xff\"}", `{}`} {
		_, err := DecodeLine([]byte(s), 7)
		var le *LineError
		if err == nil || !errorsAs(err, &le) || le.Line != 7 {
			t.Errorf("%q: %v", s, err)
		}
	}
	lines, errs := DecodeAll([]byte("{\"type\":\"a\"}\nbroken\n\n{\"type\":\"b\",\"payload\":null}"))
	if len(lines) != 2 || len(errs) != 1 || errs[0].Line != 2 || lines[1].Number != 4 {
		t.Errorf("DecodeAll: %+v %+v", lines, errs)
	}
}

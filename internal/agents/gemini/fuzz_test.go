package gemini

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode feeds Decode arbitrary payloads: it never panics, what it accepts marshals back
// into a payload that decodes to the same known fields, and the translation of any accepted
// event is a short batch of valid JSON messages that grows at most linearly with the event.
func FuzzDecode(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "captured", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		f.Add(mustRead(f, n))
	}
	for _, s := range []string{`{}`, `[]`, `null`, `{"session_id":1}`, `{"a":`, "{\"x\":\"\xff\"}",
		`{"session_id":"s","hook_event_name":"AfterTool","tool_name":"write_todos","tool_input":{"todos":[1,{"status":"blocked"}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		ev2, err := Decode(again)
		if err != nil {
			t.Fatalf("round trip does not decode: %v\n%s", err, again)
		}
		ev.Raw, ev2.Raw = nil, nil
		if !reflect.DeepEqual(compact(ev), compact(ev2)) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", ev, ev2)
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h", Plan: PlanText{Markdown: ev.Plan, Path: ev.PlanPath}})
		if ev.SessionID == "" {
			if err == nil {
				t.Fatal("an event without a session translated")
			}
			return
		}
		if err != nil || len(msgs) == 0 || len(msgs) > 6 {
			t.Fatalf("translate: %d messages, %v", len(msgs), err)
		}
		total := 0
		for _, m := range msgs {
			if !json.Valid(m) {
				t.Fatalf("invalid message %s", m)
			}
			total += len(m)
		}
		if total > 64<<10+8*len(b) {
			t.Fatalf("translation is %d bytes for a %d-byte event", total, len(b))
		}
	})
}

// compact normalises the raw JSON fields, which marshalling re-indents.
func compact(ev Event) Event {
	for _, p := range []*json.RawMessage{&ev.ToolInput, &ev.ToolResponse} {
		var v any
		if json.Unmarshal(*p, &v) == nil {
			*p, _ = json.Marshal(v)
		}
	}
	return ev
}

// FuzzCheckAnswer: whatever CheckAnswer lets through is empty or a deny with a reason, which
// is exactly what Gemini CLI reads as a refusal.
func FuzzCheckAnswer(f *testing.F) {
	f.Add([]byte(``))
	f.Add(Answer(Decision{Deny: true, Reason: "no"}))
	f.Add([]byte(`{"decision":"allow"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if CheckAnswer(b) != nil || len(b) == 0 {
			return
		}
		var v struct{ Decision, Reason string }
		if json.Unmarshal(b, &v) != nil || v.Decision != "deny" || v.Reason == "" {
			t.Fatalf("accepted %q", b)
		}
	})
}

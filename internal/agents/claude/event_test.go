package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture reads a real-shaped hook payload from testdata.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, ev Event)
	}{
		{"common fields", string(fixture(t, "pre_bash.json")), func(t *testing.T, ev Event) {
			if ev.SessionID != "3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c" || ev.Cwd != "/home/dev/shop" || ev.HookEventName != EventPreToolUse ||
				ev.ToolName != "Bash" || ev.ToolUseID != "toolu_01ABC123" || ev.PermissionMode != "default" ||
				!strings.HasSuffix(ev.TranscriptPath, ".jsonl") || !bytes.Contains(ev.ToolInput, []byte("npm test")) {
				t.Errorf("fields: %+v", ev)
			}
		}},
		{"unknown fields kept raw", `{"session_id":"s","hook_event_name":"Brand new","future":{"x":1}}`, func(t *testing.T, ev Event) {
			if ev.HookEventName != "Brand new" || !bytes.Contains(ev.Raw, []byte(`"future":{"x":1}`)) {
				t.Errorf("raw not kept: %s", ev.Raw)
			}
		}},
		{"wrong types ignored", `{"session_id":7,"cwd":["x"],"hook_event_name":"Stop","tool_input":"str"}`, func(t *testing.T, ev Event) {
			if ev.SessionID != "" || ev.Cwd != "" || ev.HookEventName != EventStop || string(ev.ToolInput) != `"str"` {
				t.Errorf("got %+v", ev)
			}
		}},
		{"task id as number", `{"session_id":"s","hook_event_name":"TaskCreated","taskId":12,"task_subject":"x"}`, func(t *testing.T, ev Event) {
			if ev.TaskID != "12" || ev.TaskSubject != "x" {
				t.Errorf("got %+v", ev)
			}
		}},
		{"task id spellings", `{"session_id":"s","hook_event_name":"TaskCompleted","id":"4"}`, func(t *testing.T, ev Event) {
			if ev.TaskID != "4" {
				t.Errorf("got %q", ev.TaskID)
			}
		}},
		{"null tool input", `{"session_id":"s","tool_input":null}`, func(t *testing.T, ev Event) {
			if ev.ToolInput != nil {
				t.Errorf("got %s", ev.ToolInput)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Decode([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, ev)
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name, body string
		offset     int64
		say        string
	}{
		{"empty", "  ", -1, "empty"},
		{"array", `[1,2]`, 0, "must be a JSON object"},
		{"string", `  "x"`, 2, "must be a JSON object"},
		{"null", `null`, -1, "not null"},
		{"truncated", `{"session_id":"s",`, 18, "malformed JSON"},
		{"bad token", `{"a":tru}`, 8, "malformed JSON"},
		{"leading space counts", "\n\n{\"a\" 1}", 7, "malformed JSON"},
		{"bad utf-8", "{\"a\":\"\xff\"}", 6, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.body))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("want a DecodeError, got %v", err)
			}
			if de.Offset != tt.offset || !strings.Contains(de.Error(), tt.say) {
				t.Errorf("got offset %d, %q; want offset %d and %q", de.Offset, de.Error(), tt.offset, tt.say)
			}
		})
	}
	big := append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), MaxEventBytes)...)
	if _, err := Decode(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversized payload: %v", err)
	}
}

func TestDecodeFixtures(t *testing.T) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		ev, err := Decode(fixture(t, e.Name()))
		if err != nil || ev.SessionID == "" || ev.HookEventName == "" {
			t.Errorf("%s: %+v %v", e.Name(), ev, err)
		}
	}
}

// known is ev without Raw, for comparing what Decode lifted out.
func known(ev Event) Event {
	ev.Raw = nil
	for _, p := range []*json.RawMessage{&ev.ToolInput, &ev.ToolResponse} {
		if *p != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, *p) == nil {
				*p = buf.Bytes()
			}
		}
	}
	return ev
}

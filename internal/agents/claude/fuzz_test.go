package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode feeds Decode arbitrary payloads: it never panics, what it accepts marshals back
// into a payload that decodes to the same known fields, and the translation of any accepted
// event is a bounded batch of messages that are each valid JSON.
func FuzzDecode(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".json" {
			f.Add(fixture(f, e.Name()))
		}
	}
	for _, s := range []string{`{}`, `[]`, `{"session_id":1}`, `{"a":`, "{\"x\":\"\xff\"}", `{"session_id":"s","hook_event_name":"TaskCompleted","taskId":1e3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			return
		}
		if len(ev.Raw) > len(b) {
			t.Fatalf("Raw grew: %d > %d", len(ev.Raw), len(b))
		}
		again, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		ev2, err := Decode(again)
		if err != nil {
			t.Fatalf("round trip does not decode: %v\n%s", err, again)
		}
		if a, b := known(ev), known(ev2); !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", a, b)
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h"})
		if ev.SessionID == "" {
			if err == nil {
				t.Fatal("an event without a session translated")
			}
			return
		}
		if err != nil || len(msgs) == 0 || len(msgs) > 8 {
			t.Fatalf("translate: %d messages, %v", len(msgs), err)
		}
		total := 0
		for _, m := range msgs {
			if !json.Valid(m) {
				t.Fatalf("invalid message %s", m)
			}
			total += len(m)
		}
		if total > 256<<10+8*len(ev.SessionID)+4*len(ev.Cwd)+4*len(ev.TranscriptPath)+4*len(ev.Host)+4*len(ev.HookEventName)+4*len(ev.ToolName)+len(b)*2 && total > 512<<10 {
			t.Fatalf("translation is %d bytes for a %d-byte event", total, len(b))
		}
	})
}

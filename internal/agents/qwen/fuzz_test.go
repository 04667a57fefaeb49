package qwen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/waits"
)

// FuzzDecode feeds Decode arbitrary payloads: it never panics, and the translation of any
// accepted event is a short batch of valid JSON messages, bounded whatever the event's size;
// questions read from any tool input stay within the waits' bounds.
func FuzzDecode(f *testing.F) {
	for _, b := range captured(f, "todos") {
		f.Add(b)
	}
	names, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{`{}`, `[]`, `null`, `{"session_id":1}`, `{"a":`, "{\"x\":\"\xff\"}",
		`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"todo_write","tool_input":{"todos":[1,{"status":"x","blockedBy":[2]}]}}`,
		`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"exit_plan_mode","tool_input":{"plan":""}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			return
		}
		if qs, err := Questions(ev.ToolInput); err == nil {
			if len(qs) == 0 || len(qs) > waits.MaxQuestions {
				t.Fatalf("%d questions", len(qs))
			}
			for _, q := range qs {
				if len(q.Question) > waits.MaxQuestionBytes+4 || len(q.Options) > waits.MaxOptions {
					t.Fatalf("question not bounded: %d bytes, %d options", len(q.Question), len(q.Options))
				}
			}
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h"})
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
		// Everything kept is bounded: prompts, plans and raw events are cut; todos are a list
		// the event itself carried, so they may grow with it, never past a few times its size.
		if total > 6*len(b)+MaxPlan+maxRawEvent+(64<<10) {
			t.Fatalf("%d bytes of messages from a %d byte event", total, len(b))
		}
	})
}

package pi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/acp"
)

// FuzzDecode: any body either fails to decode with an error that names the event, or decodes
// into an event whose translation is valid ACP, bounded whatever the input's size.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"todos","sessionId":"s1","cwd":"/p","todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"weird"}]}`,
		`{"type":"plan","sessionId":"s1","callId":"c1","plan":"# P\n\n1. x"}`,
		`{"type":"question","sessionId":"s1","callId":"c2","question":"Which?","options":["a","b"]}`,
		`{"type":"agent_end","sessionId":"s1","text":"done"}`,
		`{"type":"session_start","sessionId":"s1","sessionFile":"/h/.pi/agent/sessions/x.jsonl","reason":"startup"}`,
		`{"type":"todos","sessionId":"s1","todos":7}`,
		`{"type":"x"}`, `[]`, `{} {}`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := Decode(body)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pi event") {
				t.Fatalf("error does not say where: %v", err)
			}
			return
		}
		msgs := Translate(ev, true, "host", "proposed")
		total := 0
		for _, m := range msgs {
			total += len(m)
			if !utf8.Valid(m) || !json.Valid(m) {
				t.Fatalf("translated line is not valid JSON: %q", m)
			}
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("translated line does not decode: %v", err)
			}
		}
		if total > 2*maxPlan+maxTodos*maxTodoLen*2+64<<10 {
			t.Fatalf("translation of %d bytes is %d bytes", len(body), total)
		}
		s := NewService(nopApplier{}, nil, Config{Host: "h"})
		_ = s.Captures(body)
		_, _ = s.Handle(context.Background(), body)
	})
}

// FuzzDecodeSessionLine: any line of a session file either fails with an error naming the line,
// or decodes into bounded parts.
func FuzzDecodeSessionLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"session","version":3,"id":"0199","timestamp":"2026-11-28T07:32:11.599Z","cwd":"/p"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-11-28T07:32:12Z","message":{"role":"user","content":[{"type":"text","text":"do it"}]}}`,
		`{"type":"message","id":"b2","message":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"t1","name":"submit_plan","arguments":{"plan":"# P"}}],"model":"m","usage":{"input":1,"output":2,"totalTokens":3}}}`,
		`{"type":"message","id":"c3","message":{"role":"toolResult","toolCallId":"t1","toolName":"todo_write","isError":false,"details":{"todos":[{"content":"a","status":"pending"}]}}}`,
		`{"type":"message","message":{"role":"user","content":"plain"}}`,
		`{"type":"model_change"}`, `{}`, `[1]`, "\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeSessionLine(b, 7)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pi session line 7") {
				t.Fatalf("error does not name the line: %v", err)
			}
			return
		}
		if len(l.Prompt) > maxText+4 || len(l.Text) > maxText+4 || len(l.SessionID) > 260 || len(l.Cwd) > 4100 {
			t.Fatalf("unbounded line: %+v", l)
		}
		for _, c := range l.Calls {
			if len(c.Title) > maxToolTitle+4 || len(c.Plan) > maxPlan+4 {
				t.Fatalf("unbounded call: %+v", c)
			}
		}
	})
}

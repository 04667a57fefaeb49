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

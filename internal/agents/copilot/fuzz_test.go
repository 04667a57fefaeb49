package copilot

import (
	"testing"

	"github.com/plandash/plandash/internal/acp"
)

// FuzzDecodeTranslate: any payload either fails to decode with a copilot error, or translates
// into messages that all decode as ACP, each bounded, and a gate answer check never panics.
func FuzzDecodeTranslate(f *testing.F) {
	_, todos := captured(f, "todos")
	_, plan := captured(f, "plan")
	_, perm := captured(f, "perm")
	for _, b := range append(append(todos, plan...), perm...) {
		f.Add(b)
	}
	f.Add([]byte(`{"sessionId":"s","plandash_event":"postToolUse","toolName":"sql","plandash_todos":{"todos":[{"id":"a","title":"t","status":"weird"}]}}`))
	f.Add([]byte(`{"sessionId":"s","toolName":"exit_plan_mode","toolArgs":"{\"summary\":\"# S\"}","plandash_plan":"# P"}`))
	f.Add([]byte(`{"sessionId":"s","error":{"message":"boom"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = CheckAnswer(b)
		_ = CheckPermissionAnswer(b)
		_ = CheckQuestionAnswer(b)
		ev, err := Decode(b)
		if err != nil {
			return
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h"})
		if ev.SessionID == "" {
			if err == nil {
				t.Fatal("no session id, no error")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if len(m) > 2*MaxPlanFile+maxRawEvent+MaxTodos*(maxTodoTitle+maxTodoDesc)*2+64<<10 {
				t.Fatalf("a message of %d bytes", len(m))
			}
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("translated message does not decode: %v\n%s", err, m)
			}
		}
	})
}

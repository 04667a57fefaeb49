package app

import (
	"strconv"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/waits"
)

// hookTo posts event to agent's hook route on its own goroutine, and returns the answer when it
// comes.
func (in *instance) hookTo(t testing.TB, agent, event string) chan hookAnswer {
	out := make(chan hookAnswer, 1)
	go func() {
		code, body := in.call(t, "POST", "/api/v1/hooks/"+agent, event)
		out <- hookAnswer{code, body}
	}()
	return out
}

// TestAgentQuestionsAnsweredHere: Codex's request_user_input (PreToolUse) and Gemini CLI's
// ask_user (BeforeTool), posted to the real hook route as the CLIs send them, are question waits
// with one action per option; the answer given through the API is the hook's answer, a deny
// carrying the answers in the agent's own shape. The turn's end (Stop, AfterAgent) is a wait for
// the next prompt with the last message, and the next prompt ends it.
func TestAgentQuestionsAnsweredHere(t *testing.T) {
	for _, tc := range []struct {
		agent, ask, wantAnswer, agentID, session, end, prompt string
	}{
		{"codex",
			`{"session_id":"th-1","turn_id":"tu-1","cwd":"/home/dev/shop","hook_event_name":"PreToolUse","model":"gpt-5","tool_name":"request_user_input",` +
				`"tool_use_id":"call_1","tool_input":{"questions":[{"id":"db","header":"Database","question":"Which database?",` +
				`"options":[{"label":"PostgreSQL","description":"the server"},{"label":"SQLite","description":"a file"}]}]}}`,
			`{\"answers\":{\"db\":{\"answers\":[\"SQLite\"]}}}`, "codex", "codex:th-1",
			`{"session_id":"th-1","turn_id":"tu-1","cwd":"/home/dev/shop","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done: SQLite it is."}`,
			`{"session_id":"th-1","turn_id":"tu-2","cwd":"/home/dev/shop","hook_event_name":"UserPromptSubmit","prompt":"now the docs"}`},
		{"gemini",
			`{"session_id":"g-1","cwd":"/home/dev/shop","hook_event_name":"BeforeTool","tool_name":"ask_user",` +
				`"tool_input":{"questions":[{"header":"Database","question":"Which database?","type":"choice",` +
				`"options":[{"label":"PostgreSQL","description":"the server"},{"label":"SQLite","description":"a file"}]}]}}`,
			`{\"answers\":{\"0\":\"SQLite\"}}`, "gemini-cli", "gemini:g-1",
			`{"session_id":"g-1","cwd":"/home/dev/shop","hook_event_name":"AfterAgent","prompt":"ask me","prompt_response":"Done: SQLite it is."}`,
			`{"session_id":"g-1","cwd":"/home/dev/shop","hook_event_name":"BeforeAgent","prompt":"now the docs"}`},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			a := startInstance(t, "")
			answered := a.hookTo(t, tc.agent, tc.ask)
			w := a.awaitWait(t, waits.KindQuestion)
			if w.Title != "Which database?" || !w.Answerable || len(w.Actions) != 2 || w.Actions[1] != (waits.Action{ID: "opt-1", Label: "SQLite"}) ||
				w.SessionID != tc.session || w.Agent != tc.agentID || w.Cwd != "/home/dev/shop" || w.Deadline.IsZero() {
				t.Fatalf("question wait = %+v", w)
			}
			if code, body := a.call(t, "POST", "/api/v1/waits/"+w.ID+"/answer", `{"action":"opt-1"}`); code != 200 {
				t.Fatalf("answer: %d %s", code, body)
			}
			if got := <-answered; got.code != 200 || !strings.Contains(string(got.body), `"deny"`) || !strings.Contains(string(got.body), tc.wantAnswer) {
				t.Fatalf("hook: %d %s", got.code, got.body)
			}
			if code, body := a.call(t, "POST", "/api/v1/hooks/"+tc.agent, tc.end); code/100 != 2 {
				t.Fatalf("turn end: %d %s", code, body)
			}
			in := a.awaitWait(t, waits.KindInput)
			if in.Answerable || in.Detail != "Done: SQLite it is." || in.SessionID != tc.session {
				t.Fatalf("input wait = %+v", in)
			}
			if code, body := a.call(t, "POST", "/api/v1/hooks/"+tc.agent, tc.prompt); code/100 != 2 {
				t.Fatalf("prompt: %d %s", code, body)
			}
			for l := a.waits(t, ""); len(l.Waits) != 0; {
				l = a.waits(t, "?after="+strconv.FormatUint(l.Seq, 10)+"&wait=60s")
			}
		})
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/waits"
)

// TestProxyCursorQuestionOnDashboard: the scripted agent asks Cursor's cursor/ask_question
// through the real `plandash acp --approvals dashboard` and a real server; the question is a
// wait on the one list whose actions are its options and skipping; answering it through the
// API sends the agent Cursor's nested "answered" outcome with the option's id.
func TestProxyCursorQuestionOnDashboard(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	ide := startIDE(t, acpArgs(a, "--approvals", "dashboard", "--", tool(t, "planagent"))...)
	sess := ide.open(false)
	// The prompt's answer waits for the question's: sent here, read below.
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9001, "method": "session/prompt",
		"params": map[string]any{"sessionId": sess, "prompt": []any{map[string]any{"type": "text", "text": "cursorask"}}}})
	if _, err := ide.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Seq   uint64       `json:"seq"`
		Waits []waits.Wait `json:"waits"`
	}
	var w *waits.Wait
	for deadline := time.Now().Add(waitFor); w == nil; {
		code, body := a.gateAPI("GET", fmt.Sprintf("/api/v1/waits?after=%d&wait=10s", l.Seq), "")
		if code != 200 || json.Unmarshal(body, &l) != nil {
			t.Fatalf("GET /api/v1/waits: %d %s", code, body)
		}
		for i := range l.Waits {
			if l.Waits[i].Kind == waits.KindPermission {
				w = &l.Waits[i]
			}
		}
		if w == nil && time.Now().After(deadline) {
			t.Fatalf("no question on the list; stderr:\n%s", ide.logs())
		}
	}
	var ids []string
	for _, act := range w.Actions {
		ids = append(ids, act.ID+"="+act.Label)
	}
	if w.Title != "Cursor asks: Which database?" || !w.Answerable || strings.Join(ids, " ") != "pg=PostgreSQL lite=SQLite skip=Skip the question" {
		t.Fatalf("the question's wait = %+v", w)
	}
	if code, body := a.gateAPI("POST", "/api/v1/waits/"+w.ID+"/answer", `{"action":"lite"}`); code != 200 {
		t.Fatalf("answer: %d %s", code, body)
	}
	quoted, _ := json.Marshal(`cursorask: {"answers":[{"questionId":"db","selectedOptionIds":["lite"]}],"outcome":"answered"}`)
	want := string(quoted) // as the chunk's text sits in the IDE's frame
	for deadline := time.Now().Add(waitFor); !strings.Contains(string(ide.received()), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not hear the answer; the IDE got:\n%s", ide.received())
		}
	}
	if strings.Contains(string(ide.received()), `"cursor/ask_question"`) {
		t.Error("the IDE was asked too, with --approvals dashboard")
	}
}

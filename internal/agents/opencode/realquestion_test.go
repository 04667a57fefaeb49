package opencode

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/store/sqlite"
	"github.com/plandash/plandash/internal/waits"
)

// TestRealServeQuestion: the REAL `opencode serve` runs its question tool; the watcher keeps the
// question as a wait, a person's answer in plandash is replied to OpenCode, and the model's next
// request carries it.
func TestRealServeQuestion(t *testing.T) {
	needAgents(t)
	srv := agenttest.NewModelServer(t)
	o := agenttest.NewOpenCode(t, srv, nil)
	o.Env = append(o.Env, "OPENCODE_ENABLE_QUESTION_TOOL=1")
	ask := map[string]any{"questions": []any{map[string]any{"question": "Which database should we use?", "header": "Database",
		"options": []any{map[string]any{"label": "PostgreSQL", "description": "a server"}, map[string]any{"label": "SQLite", "description": "a file"}}}}}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "question", Input: ask}}, agenttest.Turn{Text: "Agenttest turn over."})
	s := o.Serve()
	r := newRig(t)
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "waits.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	asked := waits.NewAsked(db.Waits(), nil, nil)
	onConnect, wait := connected(t)
	r.watch(t, s.URL, Options{Host: "box", Questions: true, Asker: asked, OnConnect: onConnect})
	wait()
	session := s.Prompt("build", "set up the storage")

	var rec waits.Record
	deadline := time.Now().Add(2 * time.Minute)
	for rec.ID == "" {
		open, err := asked.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range open {
			if r.Kind == waits.KindQuestion {
				rec = r
			}
		}
		if rec.ID == "" && time.Now().After(deadline) {
			t.Fatalf("no question kept:\n%s", srv.Summary())
		} else if rec.ID == "" {
			time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
		}
	}
	if rec.SessionID != OpenCode.SessionKey(session) || rec.AgentName != AgentTitle || len(rec.Questions) != 1 || len(rec.Questions[0].Options) != 2 || !rec.Answerable {
		t.Fatalf("kept question %+v", rec)
	}
	if _, _, err := asked.Answer(context.Background(), rec.ID, waits.Answer{Action: "opt-1", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	ev := s.WaitEvent(2*time.Minute, EventQuestionReplied, nil)
	var rep struct {
		Answers [][]string `json:"answers"`
	}
	if err := json.Unmarshal(ev.Properties, &rep); err != nil || len(rep.Answers) != 1 || len(rep.Answers[0]) != 1 || rep.Answers[0][0] != "SQLite" {
		t.Errorf("question.replied %s (%v)", ev.Properties, err)
	}
	srv.WaitRequest(2*time.Minute, func(req agenttest.Request) bool {
		for _, tr := range req.ToolResults() {
			if strings.Contains(tr.Content, "SQLite") {
				return true
			}
		}
		return false
	})

	// The turn over, the session waits for its next prompt; busy again, it no longer does.
	input := waits.InputID(OpenCode.SessionKey(session))
	for {
		r, err := asked.Get(context.Background(), input)
		if err == nil && r.Open() && r.Kind == waits.KindInput && !r.Answerable {
			break
		}
		if time.Now().After(deadline.Add(time.Minute)) {
			t.Fatalf("the idle session does not wait for its prompt: %+v, %v", r, err)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
	NewWatcher(s.URL, r.plans, r.gate, Options{Asker: asked}).noteInput(context.Background(),
		Event{Type: EventSessionStatus, Properties: json.RawMessage(`{"sessionID":"` + session + `","status":{"type":"busy"}}`)})
	if got, err := asked.Get(context.Background(), input); err != nil || got.Open() {
		t.Fatalf("busy again, the input wait is %+v, %v", got, err)
	}
}

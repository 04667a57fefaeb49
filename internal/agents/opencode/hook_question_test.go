package opencode

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/store/sqlite"
	"github.com/plandash/plandash/internal/waits"
)

// TestHookQuestion: with an Asker, a question the plugin posts (not plan_exit's) is kept as an
// answerable wait; a person's answer is the reply for OpenCode; when OpenCode is answered first
// (the plugin posts question.replied) the wait ends as answered there and nothing is replied;
// session.idle and a busy session.status begin and end the session's input wait.
func TestHookQuestion(t *testing.T) {
	r := newRig(t)
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "waits.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	asked := waits.NewAsked(db.Waits(), nil, nil)
	s := NewHookService(r.plans, r.gate, HookConfig{Host: "server", Asker: asked})
	ctx := context.Background()
	question := func(id string) []byte {
		return post(t, EventQuestionAsked, map[string]any{"id": id, "sessionID": "ses_1", "questions": []any{map[string]any{
			"question": "Which colour?", "header": "Colour", "options": []any{map[string]any{"label": "Red"}, map[string]any{"label": "Blue"}}}}}, "/work/p")
	}
	openQuestion := func() waits.Record {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			open, err := asked.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range open {
				if rec.Kind == waits.KindQuestion {
					return rec
				}
			}
		}
		t.Fatal("no question kept")
		return waits.Record{}
	}

	held := handleAsync(ctx, s, question("que_1"))
	rec := openQuestion()
	if rec.SessionID != OpenCode.SessionKey("ses_1") || !rec.Answerable || rec.Title != "Which colour?" {
		t.Fatalf("kept %+v", rec)
	}
	if _, _, err := asked.Answer(ctx, rec.ID, waits.Answer{Action: "opt-1", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	h := wait(t, held)
	var rep HookReply
	if h.err != nil || json.Unmarshal(h.out, &rep) != nil || rep.Reply.Path != "/question/que_1/reply" {
		t.Fatalf("reply %s %v", h.out, h.err)
	}
	if b, _ := json.Marshal(rep.Reply.Body); string(b) != `{"answers":[["Blue"]]}` {
		t.Errorf("reply body %s", b)
	}

	held = handleAsync(ctx, s, question("que_2"))
	rec = openQuestion()
	if out, err := s.Handle(ctx, post(t, EventQuestionReplied, map[string]any{"sessionID": "ses_1", "requestID": "que_2", "answers": [][]string{{"Red"}}}, "")); err != nil || len(out) != 0 {
		t.Fatalf("question.replied: %q %v", out, err)
	}
	if h := wait(t, held); h.err != nil || len(h.out) != 0 {
		t.Errorf("answered in OpenCode, plandash still replied %q %v", h.out, h.err)
	}
	if got, err := asked.Get(ctx, rec.ID); err != nil || got.Open() || got.Outcome != "answered in OpenCode" {
		t.Errorf("the wait after OpenCode's answer: %+v %v", got, err)
	}

	input := waits.InputID(OpenCode.SessionKey("ses_1"))
	if _, err := s.Handle(ctx, post(t, EventSessionIdle, map[string]any{"sessionID": "ses_1"}, "")); err != nil {
		t.Fatal(err)
	}
	if got, err := asked.Get(ctx, input); err != nil || !got.Open() || got.Kind != waits.KindInput {
		t.Fatalf("idle: %+v %v", got, err)
	}
	if _, err := s.Handle(ctx, post(t, EventSessionStatus, map[string]any{"sessionID": "ses_1", "status": map[string]any{"type": "busy"}}, "")); err != nil {
		t.Fatal(err)
	}
	if got, err := asked.Get(ctx, input); err != nil || got.Open() {
		t.Errorf("busy again: %+v %v", got, err)
	}
}

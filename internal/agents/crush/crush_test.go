package crush

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/waits"
)

func TestDecodeCaptured(t *testing.T) {
	ev, err := Decode(captured(t, "todos"))
	if err != nil || ev.Event != EventPreToolUse || ev.ToolName != ToolTodos || ev.SessionID == "" || ev.Cwd == "" {
		t.Fatalf("%+v %v", ev, err)
	}
	todos, ok := Todos(ev.ToolInput)
	if !ok || len(todos) != 2 || todos[0] != (Todo{"Read code", "in_progress", "Reading code"}) {
		t.Errorf("todos %+v", todos)
	}
	q, err := Decode(captured(t, "question"))
	if err != nil || !IsQuestionEvent(q) {
		t.Fatalf("%+v %v", q, err)
	}
	qs, err := Questions(q.ToolInput)
	if err != nil || len(qs) != 1 || qs[0].Question != "Enable caching?" || len(qs[0].Options) != 2 {
		t.Errorf("questions %+v %v", qs, err)
	}
	for _, bad := range []string{``, `null`, `[]`, "{\"a\":\"\xff\"}", `{`} {
		if _, err := Decode([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "crush hook payload: ") {
			t.Errorf("Decode(%q) = %v", bad, err)
		}
	}
}

func TestQuestions(t *testing.T) {
	qs, err := Questions(json.RawMessage(`{"questions":"[{\"type\":\"multi_choice\",\"question\":\"Which?\",\"options\":[{\"id\":\"a\",\"label\":\"A\"},{\"id\":\"b\",\"label\":\"B\"}]},{\"type\":\"free_text\",\"question\":\"Why?\"}]"}`))
	if err != nil || len(qs) != 2 || !qs[0].Multi || len(qs[0].Options) != 2 || !qs[1].FreeText || len(qs[1].Options) != 0 {
		t.Fatalf("%+v %v", qs, err)
	}
	ans := QuestionAnswer(qs, map[string][]string{"Which?": {"A", "mine"}})
	if err := CheckQuestionAnswer(ans); err != nil {
		t.Fatal(err)
	}
	var v struct{ Reason string }
	_ = json.Unmarshal(ans, &v)
	want := answerPrefix + "Q1: Which?\nUser selected: [\"A\"]\nUser provided: mine\n\nQ2: Why?\nUser skipped this question"
	if v.Reason != want {
		t.Errorf("reason %q", v.Reason)
	}
	yes, _ := Questions(json.RawMessage(`{"questions":[{"type":"yes_no","question":"Go?"}]}`))
	if got := string(QuestionAnswer(yes, map[string][]string{"Go?": {"No"}})); !strings.Contains(got, `User answered: no`) {
		t.Errorf("yes/no answer %s", got)
	}
	if QuestionAnswer(yes, nil) != nil || CheckQuestionAnswer(nil) != nil {
		t.Error("no answers must print nothing")
	}
	for _, bad := range []string{`{}`, `{"questions":5}`, `{"questions":[{"type":"yes_no"}]}`, `[]`} {
		if _, err := Questions(json.RawMessage(bad)); err == nil {
			t.Errorf("Questions(%s) gave no error", bad)
		}
	}
	for _, bad := range []string{`{"decision":"allow"}`, `{"decision":"deny","reason":"x"}`, `nope`} {
		if CheckQuestionAnswer([]byte(bad)) == nil {
			t.Errorf("CheckQuestionAnswer(%s) passed", bad)
		}
	}
}

type poster struct {
	answer []byte
	err    error
	got    [][]byte
}

func (p *poster) Post(_ context.Context, body []byte, _ bool) ([]byte, error) {
	p.got = append(p.got, body)
	return p.answer, p.err
}

func TestRunHook(t *testing.T) {
	qs, _ := Questions(json.RawMessage(`{"questions":[{"type":"yes_no","question":"Enable caching?"}]}`))
	ans := QuestionAnswer(qs, map[string][]string{"Enable caching?": {"Yes"}})
	tests := []struct {
		name   string
		in     []byte
		p      poster
		out    string
		stderr string
	}{
		{name: "todos posted", in: captured(t, "todos")},
		{name: "question answered", in: captured(t, "question"), p: poster{answer: ans}, out: string(ans)},
		{name: "no answer: the dialog asks", in: captured(t, "question")},
		{name: "server down: the dialog asks", in: captured(t, "question"), p: poster{err: errors.New("refused")}, stderr: "answer the question here"},
		{name: "foreign answer not printed", in: captured(t, "question"), p: poster{answer: []byte(`{"decision":"allow"}`)}, stderr: "not deny"},
		{name: "capture failure silent", in: captured(t, "todos"), p: poster{err: errors.New("refused")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			p := tt.p
			if err := RunHook(context.Background(), bytes.NewReader(tt.in), &out, &p, HookOptions{Host: "box", Stderr: &stderr}); err != nil {
				t.Fatal(err)
			}
			if len(p.got) != 1 || !strings.Contains(string(p.got[0]), `"plandash_host":"box"`) {
				t.Errorf("posted %q", p.got)
			}
			if out.String() != tt.out || !strings.Contains(stderr.String(), tt.stderr) || (tt.stderr == "" && stderr.Len() > 0) {
				t.Errorf("out %q, stderr %q", out.String(), stderr.String())
			}
		})
	}
	var p poster
	if err := RunHook(context.Background(), strings.NewReader("nope"), &bytes.Buffer{}, &p, HookOptions{}); err != nil || len(p.got) != 0 {
		t.Errorf("a bad event: %v, posted %d", err, len(p.got))
	}
}

// TestServiceQuestion answers a captured question through a real waits.Asked.
func TestServiceQuestion(t *testing.T) {
	asked := waits.NewAsked(newDB(t).Waits(), nil, nil)
	svc := NewService(newPlans(t), nil, Config{Host: "h", Asker: asked})
	body := captured(t, "question")
	if svc.Captures(body) || !svc.Captures(captured(t, "todos")) {
		t.Fatal("Captures")
	}
	done := make(chan []byte, 1)
	go func() {
		ans, err := svc.Handle(context.Background(), body)
		if err != nil {
			t.Error(err)
		}
		done <- ans
	}()
	q := awaitQuestion(t, asked)
	if _, _, err := asked.Answer(context.Background(), q.ID, waits.Answer{Action: "opt-0", By: "ann"}); err != nil {
		t.Fatal(err)
	}
	if got := string(<-done); !strings.Contains(got, "User answered: yes") {
		t.Errorf("answer %s", got)
	}
}

func TestInstall(t *testing.T) {
	path := ConfigPath(t.TempDir(), "", "")
	user := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"^bash$\",\n        \"command\": \"./no-rm.sh\"\n      }\n    ]\n  },\n  \"options\": {\n    \"debug\": true\n  }\n}\n"
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	_ = os.WriteFile(path, []byte(user), 0o600)
	rep, err := Install(path, InstallOptions{Command: "/opt/plandash", Server: "http://h:1"})
	if err != nil || !rep.Changed || rep.Created {
		t.Fatalf("%+v %v", rep, err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"command": "/opt/plandash hook crush --server http://h:1"`, `"matcher": "^(todos|question)$"`, `"timeout": 86400`, `"./no-rm.sh"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("lacks %s:\n%s", want, b)
		}
	}
	if !installed(b) {
		t.Error("Installed does not see the hook")
	}
	if rep, _ := Install(path, InstallOptions{Command: "/opt/plandash", Server: "http://h:1"}); rep.Changed {
		t.Error("a second install changed the file")
	}
	if rep, err := Uninstall(path, ""); err != nil || !rep.Changed {
		t.Fatalf("uninstall %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(path); string(b) != user || installed(b) {
		t.Errorf("uninstall did not give the file back:\n%s", b)
	}
	if got := ConfigPath("/h", "/x", ""); got != "/x/crush/crush.json" {
		t.Errorf("ConfigPath = %s", got)
	}
	if got := ConfigPath("/h", "/x", "/g"); got != "/g/crush.json" {
		t.Errorf("ConfigPath = %s", got)
	}
}

// FuzzDecodeTranslate: any payload either fails to decode with a crush error, or translates into
// messages that all decode as ACP, bounded; the question readers never panic.
func FuzzDecodeTranslate(f *testing.F) {
	f.Add(captured(f, "todos"))
	f.Add(captured(f, "question"))
	f.Add([]byte(`{"session_id":"s","tool_name":"todos","tool_input":{"todos":[{"content":"x","status":"odd"},5]}}`))
	f.Add([]byte(`{"session_id":"s","tool_name":"question","tool_input":{"questions":"[{\"type\":\"free_text\",\"question\":\"q\"}]"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = CheckQuestionAnswer(b)
		ev, err := Decode(b)
		if err != nil {
			return
		}
		if qs, err := Questions(ev.ToolInput); err == nil {
			_ = CheckQuestionAnswer(QuestionAnswer(qs, map[string][]string{qs[0].Question: {"x"}}))
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h"})
		if (ev.SessionID == "") != (err != nil) {
			t.Fatalf("session %q, err %v", ev.SessionID, err)
		}
		for _, m := range msgs {
			if len(m) > 2*maxRawEvent+MaxTodos*3*maxTodoText+64<<10 {
				t.Fatalf("a message of %d bytes", len(m))
			}
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("does not decode: %v\n%s", err, m)
			}
		}
	})
}

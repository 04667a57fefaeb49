package qwen

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
)

// TestApplyCapturedTodos sends the real CLI's events through the Service into a real
// plans.Service on SQLite: the todo list shows, with the prompt and the turn's answer as
// activity, and every event but none needs an answer.
func TestApplyCapturedTodos(t *testing.T) {
	ctx := context.Background()
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	for _, b := range captured(t, "todos") {
		if !svc.Captures(b) {
			t.Errorf("Captures(%.80s) = false", b)
		}
		if ans, err := svc.Handle(ctx, b); err != nil || len(ans) != 0 {
			t.Fatalf("answer %q, err %v for %.120s", ans, err, b)
		}
	}
	checkTodos(t, p, "devbox")
	list, _ := p.Sessions(ctx, 10)
	d, err := p.Session(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, a := range d.Activity {
		kinds[a.Kind] += a.Text + "|"
	}
	for kind, text := range map[string]string{"prompt": "plan the parser", "agent_message_chunk": "Agenttest turn over."} {
		if !strings.Contains(kinds[kind], text) {
			t.Errorf("activity %s = %q (all %v)", kind, kinds[kind], kinds)
		}
	}
	if strings.Count(kinds["prompt"], "|") != 1 {
		t.Errorf("the tool-result UserPromptSubmit counted as a prompt: %q", kinds["prompt"])
	}
}

// servicePoster posts straight into a real Service, as the HTTP endpoint will.
type servicePoster struct{ svc *Service }

func (p servicePoster) Post(ctx context.Context, body []byte, _ bool) ([]byte, error) {
	return p.svc.Handle(ctx, body)
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGateDecisions runs exit_plan_mode's PermissionRequest through RunHook into a Service on a
// real gate, decides, and checks the bytes the hook prints for Qwen Code.
func TestGateDecisions(t *testing.T) {
	tests := []struct {
		name    string
		in      approval.DecisionInput
		wantMsg string // "" : nothing printed
	}{
		{name: "approve", in: approval.DecisionInput{Action: approval.Approve, By: "ann"}},
		{name: "reject", in: approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "Split step 2"}, wantMsg: "Split step 2"},
		{name: "request changes", in: approval.DecisionInput{Action: approval.RequestChanges, By: "ann",
			Feedback: []approval.Comment{{Target: approval.TargetLine, Line: 3, Comment: "Lex and parse apart"}}}, wantMsg: "Lex and parse apart"},
		{name: "modify", in: approval.DecisionInput{Action: approval.Modify, By: "ann", Comment: "tighter",
			Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Parser plan\n\n1. Lex\n"}}, wantMsg: "1. Lex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := fixture(t, "permission_exit_plan_mode.json")
			g := newGate(t)
			created := make(chan approval.Request, 4)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			p := newPlans(t)
			svc := NewService(p, g, Config{Host: "server"})
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				done <- RunHook(context.Background(), bytes.NewReader(body), &out, servicePoster{svc}, HookOptions{Host: "laptop"})
			}()
			var req approval.Request
			select {
			case req = <-created:
			case err := <-done:
				t.Fatalf("the hook returned before a request was made: %v %q", err, out.String())
			case <-time.After(10 * time.Second):
				t.Fatal("no request reached the gate")
			}
			if req.Agent != AgentTitle || req.Title != "Plan: Parser plan" || !strings.Contains(req.Plan.Markdown, "1. Tokenize") ||
				!strings.Contains(req.Context, "laptop") {
				t.Errorf("request %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, tt.in); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the hook did not return")
			}
			if tt.wantMsg == "" {
				if out.Len() != 0 {
					t.Errorf("approve printed %q, want nothing (Qwen's dialog asks)", out.String())
				}
			} else if msg, err := denyMessage(out.Bytes()); err != nil || !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("answer %q (%v), want a deny saying %q", out.String(), err, tt.wantMsg)
			}
			// The plan shows on the session page as proposed.
			d, err := p.Session(context.Background(), req.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Plans) != 1 || d.Plans[0].ID != PlanMode || d.Plans[0].Kind != plans.KindMarkdown || !strings.Contains(d.Plans[0].Markdown, "Tokenize") {
				t.Errorf("plans %+v", d.Plans)
			}
		})
	}
}

type funcPoster func(ctx context.Context) ([]byte, error)

func (f funcPoster) Post(ctx context.Context, _ []byte, _ bool) ([]byte, error) { return f(ctx) }

// TestRunHookNeverBreaksTheAgent: a server that fails or answers nonsense never fails the hook
// and prints nothing, so Qwen Code's own dialog asks; the person is told why on stderr. An
// allow from the server is never passed on: only a deny of plandash's shape is.
func TestRunHookNeverBreaksTheAgent(t *testing.T) {
	body := fixture(t, "permission_exit_plan_mode.json")
	for name, post := range map[string]funcPoster{
		"down": func(context.Context) ([]byte, error) { return nil, context.DeadlineExceeded },
		"allow": func(context.Context) ([]byte, error) {
			return []byte(`{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}`), nil
		},
		"html": func(context.Context) ([]byte, error) { return []byte(`<html>`), nil },
	} {
		var out, errOut bytes.Buffer
		if err := RunHook(context.Background(), bytes.NewReader(body), &out, post, HookOptions{Stderr: &errOut}); err != nil || out.Len() != 0 {
			t.Errorf("%s: out %q, err %v", name, out.String(), err)
		}
		if !strings.Contains(errOut.String(), "dialog asks") {
			t.Errorf("%s: stderr %q does not say why", name, errOut.String())
		}
		out.Reset()
		capture := captured(t, "todos")[0]
		if err := RunHook(context.Background(), bytes.NewReader(capture), &out, post, HookOptions{}); err != nil || out.Len() != 0 {
			t.Errorf("%s, a capture: out %q, err %v", name, out.String(), err)
		}
	}
	for _, bad := range []string{"", "null", "[1]", "{\"a\":\"\xff\"}"} {
		var out bytes.Buffer
		if err := RunHook(context.Background(), strings.NewReader(bad), &out, funcPoster(func(context.Context) ([]byte, error) {
			return nil, errors.New("must not be posted")
		}), HookOptions{}); err != nil || out.Len() != 0 {
			t.Errorf("%q: out %q, err %v", bad, out.String(), err)
		}
	}
}

// TestGateHookStoppedHandsOver: a hook that stopped waiting (Qwen Code's timeout, or Qwen Code
// stopped) hands the request to the terminal: nobody rejected the plan, and Qwen's own dialog
// asks next.
func TestGateHookStoppedHandsOver(t *testing.T) {
	g := newGate(t)
	created := make(chan approval.Request, 4)
	g.OnChange(func(c approval.Change) {
		if c.Request != nil && !c.Request.Decided() {
			created <- *c.Request
		}
	})
	svc := NewService(newPlans(t), g, Config{Host: "h"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := svc.Handle(ctx, fixture(t, "permission_exit_plan_mode.json"))
		done <- err
	}()
	var req approval.Request
	select {
	case req = <-created:
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the gate")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Handle did not return")
	}
	got, err := g.Get(context.Background(), req.ID)
	if err != nil || got.Status != approval.Elsewhere || got.Decision != nil || got.Handover == nil || got.Handover.Note != HookStopped {
		t.Errorf("request after the hook stopped: %+v (%v)", got, err)
	}
}

// TestQuestionAnswered: ask_user_question's PermissionRequest becomes a wait; the person's
// answers reach the hook as a deny whose message carries them, the shape the tool itself gives
// the model; a Stop then lists the session as waiting for its next prompt.
func TestQuestionAnswered(t *testing.T) {
	asked := waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)
	svc := NewService(newPlans(t), newGate(t), Config{Host: "h", Asker: asked})
	body := fixture(t, "permission_ask_user_question.json")
	if svc.Captures(body) {
		t.Error("a question counts as a capture")
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- RunHook(context.Background(), bytes.NewReader(body), &out, servicePoster{svc}, HookOptions{})
	}()
	var open []waits.Record
	for end := time.Now().Add(10 * time.Second); len(open) == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		open, _ = asked.Open(context.Background())
	}
	if len(open) != 1 || len(open[0].Questions) != 2 || !open[0].Questions[1].Multi || open[0].Agent != AgentName {
		t.Fatalf("open waits: %+v", open)
	}
	if _, _, err := asked.Answer(context.Background(), open[0].ID, waits.Answer{By: "ann",
		Answers: map[string][]string{"Which parser style?": {"PEG"}, "Which tests?": {"Unit", "Fuzz"}}}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	msg, err := denyMessage(out.Bytes())
	if err != nil || !strings.Contains(msg, "**Parser**: PEG") || !strings.Contains(msg, "**Tests**: Unit, Fuzz") || CheckQuestionAnswer(out.Bytes()) != nil {
		t.Errorf("answer %q (%v)", out.String(), err)
	}
	stop := `{"session_id":"` + sessionOf(t, body) + `","hook_event_name":"Stop","cwd":"/p","last_assistant_message":"Done."}`
	if _, err := svc.Handle(context.Background(), []byte(stop)); err != nil {
		t.Fatal(err)
	}
	open, _ = asked.Open(context.Background())
	if len(open) != 1 || open[0].Kind != waits.KindInput || open[0].Text != "Done." {
		t.Errorf("after Stop: %+v", open)
	}
}

func sessionOf(t testing.TB, b []byte) string {
	ev, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return ev.SessionID
}

// TestCheckAnswers: the hook passes on only plandash's own shapes.
func TestCheckAnswers(t *testing.T) {
	qs, err := Questions([]byte(`{"questions":[{"question":"Q?","header":"H","options":[{"label":"A"},{"label":"B"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		b            []byte
		plan, answer bool
	}{
		{nil, true, true},
		{Answer(Decision{Deny: true, Message: "no"}), true, false},
		{QuestionAnswer(qs, map[string][]string{"Q?": {"A"}}), true, true},
		{[]byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`), false, false},
		{[]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","decision":{"behavior":"deny","message":"x"}}}`), false, false},
		{[]byte(`{"decision":"deny","reason":"x"}`), false, false},
		{[]byte(`nope`), false, false},
	} {
		if got := CheckAnswer(tc.b) == nil; got != tc.plan {
			t.Errorf("CheckAnswer(%s) ok = %v", tc.b, got)
		}
		if got := CheckQuestionAnswer(tc.b) == nil; got != tc.answer {
			t.Errorf("CheckQuestionAnswer(%s) ok = %v", tc.b, got)
		}
	}
	if QuestionAnswer(qs, nil) != nil {
		t.Error("no answers must print nothing")
	}
	if ResponseAnswers([]byte(`{"llmContent":"User has provided the following answers:\n\n**H**: A"}`)) != "**H**: A" {
		t.Error("ResponseAnswers")
	}
}

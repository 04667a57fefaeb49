package pi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/waits/waitstest"
)

// rig is a real HTTP server around a Service on a real gate, plans service and waits on
// SQLite, and the real Pi with plandash's extension installed (by Install) posting to it.
type rig struct {
	svc   *Service
	cli   *agenttest.Pi
	srv   *agenttest.ModelServer
	plans *plans.Service
	gate  *approval.Gate
	asked *waits.Asked
}

func newRig(t *testing.T) rig {
	t.Helper()
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	r := rig{plans: agenttest.Plans(t), gate: agenttest.Gate(t), asked: waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)}
	svc := NewService(r.plans, r.gate, Config{Host: "server", Asker: r.asked})
	r.svc = svc
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(io.LimitReader(req.Body, MaxEventBytes+1))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ans, err := svc.Handle(req.Context(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(ans)
	}))
	t.Cleanup(hs.Close)
	r.srv = agenttest.NewModelServer(t)
	r.cli = agenttest.NewPi(t, r.srv)
	if _, err := Install(ExtensionDir("", func(k string) string {
		if k == "HOME" {
			return r.cli.Home
		}
		return ""
	}), Options{Server: hs.URL}); err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	todoArgs = map[string]any{"todos": []any{
		map[string]any{"content": "Tokenize the input", "status": "in_progress"},
		map[string]any{"content": "Parse the tokens", "status": "pending"}}}
	planArgs = map[string]any{"plan": "# Parser plan\n\n1. Tokenize\n2. Parse\n"}
)

// TestRealPiGate: the REAL Pi, with plandash's extension, writes its todo list (todo_write) and
// submits a plan (submit_plan); the list reaches the plans service, the plan waits at the gate
// until the test decides, and the decision reaches the model as submit_plan's result.
func TestRealPiGate(t *testing.T) {
	tests := []struct {
		action  approval.Action
		isError bool
		want    string
	}{
		{approval.Reject, true, "Split step 2 first"},
		{approval.Approve, false, "approved the plan"},
		{approval.Modify, false, "1. Tokenize and parse"},
	}
	for _, tt := range tests {
		t.Run(string(tt.action), func(t *testing.T) {
			r := newRig(t)
			created := make(chan approval.Request, 4)
			r.gate.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			r.srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todo_write", Input: todoArgs, ID: "toolu_todo"}},
				agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "submit_plan", Input: planArgs, ID: "toolu_plan"}},
				agenttest.Turn{Text: "Agenttest turn over."})
			decided := make(chan error, 1)
			go func() {
				select {
				case req := <-created:
					if !strings.Contains(req.Plan.Markdown, "1. Tokenize") || !strings.HasPrefix(req.SessionID, SessionPrefix) {
						decided <- fmt.Errorf("request without the plan: %+v", req)
						return
					}
					todos, err := r.plans.Plan(context.Background(), req.SessionID, PlanTodos)
					if err != nil || len(todos.Entries) != 2 || todos.Entries[0].Status != plans.StatusInProgress {
						decided <- fmt.Errorf("todo list before the plan = %+v, %v", todos, err)
						return
					}
					in := approval.DecisionInput{Action: tt.action, By: "ann", Comment: "Split step 2 first"}
					if tt.action == approval.Modify {
						in.Plan = &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Parser plan\n\n1. Tokenize and parse\n"}
					}
					_, err = r.gate.Decide(context.Background(), req.ID, in)
					decided <- err
				case <-time.After(3 * time.Minute):
					decided <- fmt.Errorf("no request reached the gate")
				}
			}()
			res := r.cli.Print(3*time.Minute, "plan the parser")
			if res.Err != nil {
				t.Fatalf("pi -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, r.srv.Summary())
			}
			if err := <-decided; err != nil {
				t.Fatal(err)
			}
			var got *agenttest.ToolResult
			for _, req := range r.srv.MainRequests() {
				if tr, ok := req.ToolResult("toolu_plan"); ok {
					got = &tr
				}
			}
			if got == nil {
				t.Fatalf("no submit_plan result reached the model:\n%s", r.srv.Summary())
			}
			if got.IsError != tt.isError || !strings.Contains(got.Content, tt.want) {
				t.Errorf("submit_plan result = %+v, want %q (error %v)", *got, tt.want, tt.isError)
			}
		})
	}
}

// TestRealPiQuestion: the REAL Pi's model asks (ask_user); the question is listed in plandash
// as a wait, a person answers it there, and the answer reaches the model. The turn's end then
// lists the session as waiting for its next prompt, until the session ends.
func TestRealPiQuestion(t *testing.T) {
	r := newRig(t)
	r.srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "ask_user", ID: "toolu_ask",
		Input: map[string]any{"question": "Which parser?", "options": []any{"LL(1)", "LR(1)"}}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	done := make(chan Result, 1)
	go func() { done <- Result(r.cli.Print(3*time.Minute, "ask me")) }()
	q := waitstest.AwaitOpen(t, r.asked, waits.KindQuestion, nil)
	if len(q.Questions) != 1 || len(q.Questions[0].Options) != 2 || !q.Answerable {
		t.Fatalf("question wait = %+v", q)
	}
	if _, _, err := r.asked.Answer(context.Background(), q.ID, waits.Answer{Answers: map[string][]string{"Which parser?": {"LR(1)"}}, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.Err != nil {
		t.Fatalf("pi -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, r.srv.Summary())
	}
	var got string
	for _, req := range r.srv.MainRequests() {
		if tr, ok := req.ToolResult("toolu_ask"); ok {
			got = tr.Content
		}
	}
	if !strings.Contains(got, "LR(1)") {
		t.Errorf("ask_user result = %q, want the answer LR(1)\n%s", got, r.srv.Summary())
	}
	// Print mode ends the session after the turn: its input wait began with the turn's answer
	// and ended with the session.
	in, err := r.asked.Get(context.Background(), waits.InputID(q.SessionID))
	if err != nil || !strings.Contains(in.Text, "Agenttest turn over.") || in.Open() || in.Outcome != "the session ended" {
		t.Errorf("input wait = %+v, %v; want the turn's last answer, ended with the session", in, err)
	}
}

// Result is agenttest.Result, named here for the channel.
type Result agenttest.Result

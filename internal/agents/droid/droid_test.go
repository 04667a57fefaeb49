package droid

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
)

func TestTodos(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Todo
		err      string
	}{
		{"droid's lines", `{"todos":"1. [completed] Read\n2. [in_progress] Write\n\n3. [pending] Test"}`,
			[]Todo{{"Read", "completed"}, {"Write", "in_progress"}, {"Test", "pending"}}, ""},
		{"no status is pending", `{"todos":"1. Read the code\n- [x] odd"}`,
			[]Todo{{"Read the code", "pending"}, {"odd", "x"}}, ""},
		{"a JSON list", `{"todos":[{"content":"A","status":"completed"},{"content":""},7,{"content":"B"}]}`,
			[]Todo{{"A", "completed"}, {"B", "pending"}}, ""},
		{"a JSON list in a string", `{"todos":"[{\"content\":\"A\",\"status\":\"in_progress\"}]"}`,
			[]Todo{{"A", "in_progress"}}, ""},
		{"empty list", `{"todos":""}`, []Todo{}, ""},
		{"no todos", `{}`, nil, "has no todos"},
		{"not an object", `[1]`, nil, "not an object"},
		{"a number", `{"todos":5}`, nil, "neither text nor a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Todos(json.RawMessage(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Todos = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	entries := TodoEntries([]Todo{{"A", "in_progress"}, {"B", "blocked"}})
	if entries[0].Status != plans.StatusInProgress || entries[1].Status != "_blocked" || !strings.Contains(string(entries[1].Meta), `"blocked"`) {
		t.Errorf("TodoEntries = %+v", entries)
	}
}

func TestQuestions(t *testing.T) {
	in := `{"questionnaire":"1. [question] Which features? (multi)\n[topic] Features\n[option] Auth\n[option] Login\n\n2. [question] Which library?\n[option] ABC\n[option] XYZ\n3. [question] Which features? (multi)\nnoise"}`
	qs, err := Questions(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Question != "Which features?" || !qs[0].Multi || qs[0].Header != "Features" ||
		len(qs[0].Options) != 2 || qs[1].Multi || qs[1].Options[1].Label != "XYZ" || !qs[1].FreeText {
		t.Fatalf("Questions = %+v", qs)
	}
	for _, bad := range []string{`{}`, `{"questionnaire":"just text"}`, `{"questionnaire":5}`, `[]`} {
		if _, err := Questions(json.RawMessage(bad)); err == nil {
			t.Errorf("Questions(%s) took it", bad)
		}
	}
	out := QuestionAnswer(qs, map[string][]string{"Which library?": {"ABC"}, "Which features?": {"Auth", "Login"}})
	if err := CheckQuestionAnswer(out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "1. Which features? → Auth, Login") || !strings.Contains(string(out), "2. Which library? → ABC") {
		t.Errorf("QuestionAnswer = %s", out)
	}
	if QuestionAnswer(qs, nil) != nil {
		t.Error("no answers must print nothing")
	}
}

func TestDecodeErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":         "empty",
		"[1]":      "not a JSON object",
		"null":     "not null",
		"{\"a\":1": "not a JSON object",
		"\xff":     "UTF-8",
	} {
		_, err := Decode([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "droid hook payload: ") {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
	if _, err := Decode(make([]byte, MaxEventBytes+1)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a huge payload: %v", err)
	}
}

// captured returns the payloads the real Droid sent in the capture run, in order.
func captured(t *testing.T) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "captured", "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no captured payloads: %v", err)
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestCapture: the payloads the real Droid sent, applied through the Service to the real plans
// service on SQLite, give one session with the todo list and the spec as Droid ended it.
func TestCapture(t *testing.T) {
	p := agenttest.Plans(t)
	svc := NewService(p, nil, Config{Host: "box"})
	ctx := context.Background()
	var sid string
	for _, b := range captured(t) {
		if _, err := svc.Handle(ctx, b); err != nil {
			t.Fatalf("Handle(%s): %v", b, err)
		}
		ev, _ := Decode(b)
		sid = SessionKey(ev.SessionID)
	}
	todos, err := p.Plan(ctx, sid, PlanTodos)
	if err != nil || len(todos.Entries) != 2 || todos.Entries[0].Content != "Read the code" || todos.Entries[0].Status != plans.StatusInProgress {
		t.Errorf("todos = %+v, %v", todos, err)
	}
	spec, err := p.Plan(ctx, sid, PlanSpec)
	if err != nil || spec.Markdown != "# Plan\n1. do it" || !strings.Contains(string(spec.Meta), `"approved"`) || !strings.Contains(string(spec.Meta), ".factory/specs/") {
		t.Errorf("spec = %+v, %v", spec, err)
	}
	sess, err := p.SessionOnly(ctx, sid)
	if err != nil || sess.Cwd == "" {
		t.Errorf("session = %+v, %v", sess, err)
	}
}

func TestCaptures(t *testing.T) {
	svc := NewService(agenttest.Plans(t), nil, Config{})
	for _, b := range captured(t) {
		ev, _ := Decode(b)
		want := !IsGateEvent(ev) && !IsQuestionEvent(ev)
		if got := svc.Captures(b); got != want {
			t.Errorf("Captures(%s %s) = %v", ev.HookEventName, ev.ToolName, got)
		}
	}
	if svc.Captures([]byte(`{"hook_event_name":"Stop"}`)) {
		t.Error("an event without a session is not captured")
	}
}

// TestGateDecisions: ExitSpecMode's PreToolUse held on the real gate; each decision comes back
// as the answer Droid reads.
func TestGateDecisions(t *testing.T) {
	ev := captured(t)[3] // 04_PreToolUse_ExitSpecMode
	tests := []struct {
		in   approval.DecisionInput
		want string
	}{
		{approval.DecisionInput{Action: approval.Approve, By: "ann"}, `"permissionDecision":"allow"`},
		{approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "Split it"}, `"permissionDecisionReason":"Split it"`},
		{approval.DecisionInput{Action: approval.Modify, By: "ann", Comment: "Tests first",
			Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Plan\n1. tests\n2. do it"}},
			`"updatedInput":{"plan":"# Plan\n1. tests\n2. do it\n\nReviewer's note: Tests first"}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.in.Action), func(t *testing.T) {
			g := agenttest.Gate(t)
			created := make(chan approval.Request, 2)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			svc := NewService(agenttest.Plans(t), g, Config{Host: "box"})
			go func() {
				r := <-created
				if _, err := g.Decide(context.Background(), r.ID, tt.in); err != nil {
					t.Error(err)
				}
			}()
			out, err := svc.Handle(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckAnswer(out); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var v struct {
				Out map[string]any `json:"hookSpecificOutput"`
			}
			_ = json.Unmarshal(out, &v)
			b, _ := json.Marshal(v.Out)
			if !strings.Contains(string(b), strings.ReplaceAll(tt.want, "\n", `\n`)) {
				t.Errorf("answer = %s, want %s", out, tt.want)
			}
		})
	}
}

// TestGateHookStops: a hook that stops waiting gets no answer to print (RunHook then answers
// "ask", see TestRunHookUndecided).
func TestGateHookStops(t *testing.T) {
	g := agenttest.Gate(t)
	svc := NewService(agenttest.Plans(t), g, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out, err := svc.Handle(ctx, captured(t)[3])
	if err == nil || out != nil {
		t.Fatalf("Handle = %s, %v; want the context's error", out, err)
	}
}

func TestCheckAnswer(t *testing.T) {
	good := [][]byte{Answer(Decision{Allow: true}), Answer(Decision{Allow: true, Plan: "x"}), Answer(Decision{Reason: "no"}), Answer(Decision{}), Undecided("why")}
	for _, b := range good {
		if err := CheckAnswer(b); err != nil {
			t.Errorf("CheckAnswer(%s) = %v", b, err)
		}
	}
	bad := []string{``, `{}`, `[]`, `{"hookSpecificOutput":{"hookEventName":"Stop","permissionDecision":"allow"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"rm":"-rf"}}}`}
	for _, s := range bad {
		if err := CheckAnswer([]byte(s)); err == nil {
			t.Errorf("CheckAnswer(%s) took it", s)
		}
	}
}

package pi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

type nopApplier struct{}

func (nopApplier) Apply(context.Context, *plans.Stream, []plans.Item) (plans.Result, error) {
	return plans.Result{}, nil
}

func TestHandleRecordsTodos(t *testing.T) {
	p := agenttest.Plans(t)
	s := NewService(p, nil, Config{Host: "h"})
	body := `{"type":"todos","sessionId":"s1","cwd":"/proj","todos":[{"content":"Tokenize","status":"completed"},{"content":"Parse","status":"in_progress"},{"content":"Ship","status":"someday"}]}`
	if !s.Captures([]byte(body)) {
		t.Error("a todo list needs no answer, but Captures says it does")
	}
	if ans, err := s.Handle(context.Background(), []byte(body)); err != nil || len(ans) != 0 {
		t.Fatalf("Handle = %q, %v", ans, err)
	}
	got, err := p.Plan(context.Background(), SessionKey("s1"), PlanTodos)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{plans.StatusCompleted, plans.StatusInProgress, "_someday"}
	if len(got.Entries) != len(want) {
		t.Fatalf("entries = %+v", got.Entries)
	}
	for i, e := range got.Entries {
		if e.Status != want[i] {
			t.Errorf("entry %d status = %q, want %q", i, e.Status, want[i])
		}
	}
	sess, err := p.Session(context.Background(), SessionKey("s1"))
	if err != nil || sess.Session.Cwd != "/proj" {
		t.Errorf("session = %+v, %v", sess.Session, err)
	}
	// An empty list removes the plan.
	if _, err := s.Handle(context.Background(), []byte(`{"type":"todos","sessionId":"s1","todos":[]}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Plan(context.Background(), SessionKey("s1"), PlanTodos); err != nil || !got.Removed {
		t.Errorf("after an empty todo list the plan is %+v, %v; want it removed", got, err)
	}
}

func TestHandleBadInput(t *testing.T) {
	s := NewService(nopApplier{}, nil, Config{Host: "h"})
	for body, want := range map[string]string{
		`{"type":"todos"}`:                             "no sessionId",
		`{"sessionId":"s"}`:                            "no type",
		`{"type":"todos","sessionId":"s","todos":"x"}`: "todos",
		`{"type":"todos","sessionId":"s"} trailing`:    "data after",
		`not json`: "pi event",
	} {
		_, err := s.Handle(context.Background(), []byte(body))
		if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), want) {
			t.Errorf("Handle(%s) = %v, want an invalid-input error saying %q", body, err, want)
		}
	}
}

func TestDecision(t *testing.T) {
	md := &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "1. edited"}
	tests := []struct {
		name string
		r    approval.Request
		want Answer
		has  string
	}{
		{"pending", approval.Request{Status: approval.Pending}, Answer{}, ""},
		{"handed over", approval.Request{Status: approval.Rejected, Decision: &approval.Decision{By: TerminalDecider}}, Answer{}, ""},
		{"approved", approval.Request{Status: approval.Approved, Decision: &approval.Decision{By: "ann", Comment: "go"}}, Answer{Decision: "approved"}, "go"},
		{"modified", approval.Request{Status: approval.Modified, Decision: &approval.Decision{By: "ann", Plan: md}}, Answer{Decision: "approved"}, "1. edited"},
		{"rejected", approval.Request{Status: approval.Rejected, Decision: &approval.Decision{By: "ann", Comment: "no"}}, Answer{Decision: "rejected"}, "no"},
		{"expired", approval.Request{Status: approval.Rejected, Decision: &approval.Decision{Expired: true}}, Answer{Decision: "rejected"}, "deadline"},
	}
	for _, tt := range tests {
		got := decision(tt.r)
		if got.Decision != tt.want.Decision || !strings.Contains(got.Message, tt.has) {
			t.Errorf("%s: decision = %+v, want %s containing %q", tt.name, got, tt.want.Decision, tt.has)
		}
	}
}

// TestHoldExpires: a plan nobody decides is rejected at the deadline, and the model is told so.
func TestHoldExpires(t *testing.T) {
	g := agenttest.Gate(t)
	s := NewService(agenttest.Plans(t), g, Config{Host: "h", Deadline: time.Second})
	body := []byte(`{"type":"plan","sessionId":"s1","callId":"c1","plan":"# P\n\n1. x"}`)
	if s.Captures(body) {
		t.Error("a plan waits for a decision, but Captures says it needs none")
	}
	ans, err := s.Handle(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	var a Answer
	if err := json.Unmarshal(ans, &a); err != nil || a.Decision != "rejected" || !strings.Contains(a.Message, "deadline") {
		t.Errorf("answer = %s, %v", ans, err)
	}
}

// TestHoldStopped: when Pi stops waiting, the request is handed to the terminal, not rejected.
func TestHoldStopped(t *testing.T) {
	g := agenttest.Gate(t)
	s := NewService(agenttest.Plans(t), g, Config{Host: "h"})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	ans, err := s.Handle(ctx, []byte(`{"type":"plan","sessionId":"s1","callId":"c1","plan":"# P"}`))
	if err == nil || len(ans) != 0 {
		t.Fatalf("Handle = %q, %v; want nothing and the context's error", ans, err)
	}
	pending, err := g.Pending(context.Background())
	if err != nil || len(pending) != 0 {
		t.Errorf("pending after the hand-over = %+v, %v", pending, err)
	}
}

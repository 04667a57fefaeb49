package cline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// TestHandleFixtures: the real payloads record a session in its workspace, a plan-mode turn's
// plan, and a call at the gate that expires into a cancel.
func TestHandleFixtures(t *testing.T) {
	p, g := agenttest.Plans(t), agenttest.Gate(t)
	s := NewService(p, g, Config{Host: "server", Deadline: time.Second})
	ctx := context.Background()
	if _, err := s.Handle(ctx, fixture(t, "task_start.json")); err != nil {
		t.Fatal(err)
	}
	done := strings.Replace(string(fixture(t, "task_complete.json")), `"hookName"`, `"plandash_mode":"plan","hookName"`, 1)
	if _, err := s.Handle(ctx, []byte(done)); err != nil {
		t.Fatal(err)
	}
	key := SessionKey("1795851818810_pticw")
	sess, err := p.Session(ctx, key)
	if err != nil || sess.Session.Cwd != "/tmp/TestClineScratch1156121453/001/project" {
		t.Fatalf("session = %+v, %v", sess.Session, err)
	}
	plan, err := p.Plan(ctx, key, PlanMode)
	if err != nil || plan.Markdown != "# Plan\n\n1. a\n2. b" {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	// The same session asks to switch to act mode; nobody decides.
	sw := strings.ReplaceAll(string(fixture(t, "pre_tool_use_switch.json")), "1795852001464_v0jbn", "1795851818810_pticw")
	if s.Captures([]byte(sw)) {
		t.Error("switch_to_act_mode waits for a decision, but Captures says it needs none")
	}
	var submitted []string
	g.OnChange(func(c approval.Change) {
		if c.Request != nil && !c.Request.Decided() {
			submitted = append(submitted, c.Request.Plan.Markdown)
		}
	})
	ans, err := s.Handle(ctx, []byte(sw))
	if err != nil || !strings.Contains(string(ans), `"cancel":true`) || CheckAnswer(ans) != nil {
		t.Fatalf("answer at the deadline = %s, %v", ans, err)
	}
	if len(submitted) != 1 || submitted[0] != "# Plan\n\n1. a\n2. b" {
		t.Errorf("plans at the gate = %q; want the plan the turn presented", submitted)
	}
}

func TestHandleBadInput(t *testing.T) {
	s := NewService(agenttest.Plans(t), nil, Config{Host: "h"})
	for body, want := range map[string]string{
		`{"taskId":"t"}`:                   "no hookName",
		`{"hookName":"agent_start"}`:       "no taskId",
		`{"hookName":"x","taskId":7}`:      "taskId",
		`{"hookName":"x","taskId":"t"} {}`: "data after",
		"\xff":                             "UTF-8",
	} {
		_, err := s.Handle(context.Background(), []byte(body))
		if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), want) {
			t.Errorf("Handle(%q) = %v, want an invalid-input error saying %q", body, err, want)
		}
	}
}

func TestDecision(t *testing.T) {
	edited := &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "1. edited"}
	tests := []struct {
		name string
		r    approval.Request
		want string
	}{
		{"approved", approval.Request{Status: approval.Approved, Decision: &approval.Decision{By: "ann"}}, ""},
		{"approved with a comment", approval.Request{Status: approval.Approved, Decision: &approval.Decision{By: "ann", Comment: "tests first"}}, `"contextModification":"The user approved the plan in plandash. Their comment: tests first"`},
		{"modified", approval.Request{Status: approval.Modified, Decision: &approval.Decision{By: "ann", Plan: edited}}, "1. edited"},
		{"rejected", approval.Request{Status: approval.Rejected, Decision: &approval.Decision{By: "ann", Comment: "no"}}, `"cancel":true`},
		{"expired", approval.Request{Status: approval.Rejected, Decision: &approval.Decision{Expired: true}}, "in time"},
	}
	for _, tt := range tests {
		got := Answer(decision(tt.r))
		if (tt.want == "") != (len(got) == 0) || !strings.Contains(string(got), tt.want) {
			t.Errorf("%s: answer = %s, want %q", tt.name, got, tt.want)
		}
		if err := CheckAnswer(got); err != nil {
			t.Errorf("%s: CheckAnswer refuses Answer's own output: %v", tt.name, err)
		}
	}
}

package cline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
)

// TestRealClineGate: the REAL Cline, in its terminal UI in plan mode, presents a plan; the
// person says go, and the model calls switch_to_act_mode. plandash's PreToolUse hook holds the
// call at the gate with the plan the turn presented, until the test decides: approve lets Cline
// switch to act mode, modify lets it switch and hands the model the edited plan, reject stops
// the run and Cline stays in plan mode.
func TestRealClineGate(t *testing.T) {
	tests := []struct {
		action approval.Action
		mode   string // the mode the footer shows afterwards
		model  string // what the model's next request carries; "" when no request may follow
	}{
		{approval.Reject, "● Plan", ""},
		{approval.Approve, "● Act", "switch_to_act_mode"},
		{approval.Modify, "● Act", "1. Tokenize and parse at once"},
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
			r.srv.Script(agenttest.Turn{Text: planText},
				agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolSwitchToAct, Input: map[string]any{}, ID: "call_switch"}},
				agenttest.Turn{Text: "Implementing now."})
			x := r.cli.Interactive("--plan")
			x.Submit("plan the parser")
			x.WaitScreen(time.Minute, "2. Parse")
			decided := make(chan error, 1)
			go func() {
				select {
				case req := <-created:
					if !strings.Contains(req.Plan.Markdown, "2. Parse") || !strings.Contains(req.Context, "agent-box") {
						decided <- fmt.Errorf("request without the plan the turn presented: %+v", req)
						return
					}
					in := approval.DecisionInput{Action: tt.action, By: "ann", Comment: "Split step 2 first"}
					if tt.action == approval.Modify {
						in.Plan = &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Parser plan\n\n1. Tokenize and parse at once\n"}
					}
					_, err := r.gate.Decide(context.Background(), req.ID, in)
					decided <- err
				case <-time.After(2 * time.Minute):
					decided <- fmt.Errorf("no request reached the gate")
				}
			}()
			// Pressed again if dropped: Cline, still ending the planning turn, can drop the Enter.
			before := len(r.srv.MainRequests())
			x.SubmitUntil("looks good, go ahead", func() bool { return len(r.srv.MainRequests()) > before })
			if err := <-decided; err != nil {
				t.Fatalf("%v\nscreen:\n%s\nrequests:\n%s", err, x.Screen(), r.srv.Summary())
			}
			x.WaitScreen(time.Minute, tt.mode)
			if tt.model == "" {
				time.Sleep(2 * time.Second)
				if n := len(r.srv.MainRequests()); n != 2 {
					t.Errorf("%d model requests after a rejection, want 2 (the run stops):\n%s", n, r.srv.Summary())
				}
			} else {
				req := r.srv.WaitRequest(time.Minute, func(q agenttest.Request) bool { return q.Seq >= 3 })
				if !strings.Contains(string(req.Body), tt.model) {
					t.Errorf("the model's next request does not carry %q:\n%.2000s", tt.model, req.Body[max(0, len(req.Body)-2000):])
				}
			}
			p, err := r.plans.Plan(context.Background(), SessionKey(sessionOf(t, r)), PlanMode)
			want := map[approval.Action]string{approval.Reject: `"rejected"`, approval.Approve: `"approved"`, approval.Modify: `"approved"`}[tt.action]
			if err != nil || !strings.Contains(string(p.Meta), want) {
				t.Errorf("plan after the decision = %s, %v; want state %s", p.Meta, err, want)
			}
			x.Stop(10 * time.Second)
		})
	}
}

// sessionOf is the one Cline session the rig recorded, by Cline's id.
func sessionOf(t *testing.T, r rig) string {
	t.Helper()
	ss, err := r.plans.Sessions(context.Background(), 10)
	if err != nil || len(ss) != 1 {
		t.Fatalf("sessions = %+v, %v", ss, err)
	}
	return strings.TrimPrefix(ss[0].ID, SessionPrefix)
}

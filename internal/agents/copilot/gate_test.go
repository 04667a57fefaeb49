package copilot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
)

// TestServiceGate holds the captured exit_plan_mode call at a real gate and answers each
// decision as Copilot CLI reads it.
func TestServiceGate(t *testing.T) {
	_, plan := captured(t, "plan")
	body := []byte(strings.Replace(string(plan[1]), `{"sessionId"`, `{"plandash_plan":"# Parser plan\n\n1. Tokenize","plandash_plan_path":"/h/plan.md","sessionId"`, 1))
	tests := []struct {
		in   approval.DecisionInput
		want string
	}{
		{approval.DecisionInput{Action: approval.Approve, By: "ann"}, ""},
		{approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "Split step 2"}, `"permissionDecision":"deny","permissionDecisionReason":"Split step 2"`},
		{approval.DecisionInput{Action: approval.Modify, By: "ann", Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# New"}}, "Rewrite plan.md to this"},
	}
	for _, tt := range tests {
		t.Run(string(tt.in.Action), func(t *testing.T) {
			g := newGate(t)
			svc := NewService(newPlans(t), g, Config{Host: "server"})
			if svc.Captures(body) {
				t.Fatal("the plan call counted as a capture")
			}
			done := make(chan []byte, 1)
			go func() {
				ans, err := svc.Handle(context.Background(), body)
				if err != nil {
					t.Error(err)
				}
				done <- ans
			}()
			var req approval.Request
			for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				p, _ := g.Pending(context.Background())
				if len(p) == 1 {
					req = p[0]
					break
				}
				if time.Now().After(end) {
					t.Fatal("no request")
				}
			}
			if req.Title != "Plan: Parser plan" || !strings.Contains(req.Context, "/h/plan.md") || req.Agent != AgentTitle {
				t.Errorf("request %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, tt.in); err != nil {
				t.Fatal(err)
			}
			ans := <-done
			if (tt.want == "") != (len(ans) == 0) || !strings.Contains(string(ans), tt.want) {
				t.Errorf("answer %s, want %s", ans, tt.want)
			}
			if CheckAnswer(ans) != nil {
				t.Errorf("the answer does not pass CheckAnswer: %s", ans)
			}
		})
	}
}

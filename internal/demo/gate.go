package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/plandash/plandash/internal/sharedplans"
)

// askApproval submits plan to the gate and waits for the decision, as an agent that wants a
// human to look before it acts would. It returns the decision ("approved", "modified",
// "rejected"), the plan to run and the comment. Nobody deciding within the deadline approves, so
// an unattended demo keeps moving.
func (r *run) askApproval(title string, plan map[string]any) (decision string, result json.RawMessage, comment string) {
	if r.err != nil {
		return "", nil, ""
	}
	sub := map[string]any{"title": title, "agent": "claude-agent-acp", "sessionId": r.session,
		"context": "Plan mode finished: the agent waits for your go-ahead before editing code.",
		"plan":    plan, "timeout": "2m", "default": "approve"}
	created, _, err := r.a.API.CreateApproval(r.ctx, sub)
	if err != nil {
		return "", nil, ""
	}
	for r.ctx.Err() == nil {
		a, err := r.a.API.WaitApproval(r.ctx, created.ID, 30*time.Second)
		if err != nil {
			return "", nil, ""
		}
		var got struct {
			Decision *struct {
				Comment      string
				FeedbackText string
				Plan         json.RawMessage
			}
		}
		if a.Decided() && a.Decode(&got) == nil && got.Decision != nil {
			if got.Decision.FeedbackText != "" {
				return a.Status, got.Decision.Plan, got.Decision.FeedbackText
			}
			return a.Status, got.Decision.Plan, got.Decision.Comment
		}
	}
	return "", nil, ""
}

// sharedRelease keeps a docker-agent style shared plan moving through its statuses, written on
// disk with the lock as another agent process would.
func (a *Agent) sharedRelease(ctx context.Context) {
	if a.PlansDir == "" {
		return
	}
	st := sharedplans.New(a.PlansDir)
	steps := []struct{ status, content string }{
		{"drafting", "# Release 1.4\n\n- [ ] Freeze the API\n- [ ] Cut the branch\n- [ ] Publish notes"},
		{"ready-for-build", "# Release 1.4\n\n- [x] Freeze the API\n- [ ] Cut the branch\n- [ ] Publish notes"},
		{"in-progress", "# Release 1.4\n\n- [x] Freeze the API\n- [x] Cut the branch\n- [ ] Publish notes"},
		{"done", "# Release 1.4\n\n- [x] Freeze the API\n- [x] Cut the branch\n- [x] Publish notes"},
	}
	author, title := "architect", "Release 1.4"
	for i := 0; ; i++ {
		s := steps[i%len(steps)]
		if _, err := st.Upsert(ctx, sharedplans.UpsertRequest{Name: "release-1-4", Title: &title, Author: &author, Status: &s.status, Content: &s.content}); err != nil && ctx.Err() == nil {
			fmt.Fprintf(a.logOut(), "demo: shared plan: %v\n", err)
		}
		// A release moves at a person's pace: a step every minute or so, and a while at "done"
		// before the next release starts over.
		pause := 45*time.Second + time.Duration(rand.Int64N(int64(30*time.Second)))
		if s.status == "done" {
			pause = 5 * time.Minute
		}
		if !a.sleep(ctx, pause) {
			return
		}
	}
}

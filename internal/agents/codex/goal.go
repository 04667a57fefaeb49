package codex

import (
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Codex's goal tools (codex-rs/core/src/tools/handlers/goal.rs and goal_spec.rs). With a
// generic provider Codex 0.169.0 offers them instead of update_plan: create_goal {objective,
// token_budget?} starts the thread's one goal, update_goal {status: "complete"} ends it, get_goal
// reads it. Each answers {"goal": {objective, status, tokenBudget, tokensUsed,
// timeUsedSeconds, …}, …}, which the rollout records as the call's function_call_output; the
// goal is shown from there, as it stands after the call.
const (
	ToolCreateGoal = "create_goal"
	ToolUpdateGoal = "update_goal"
	ToolGetGoal    = "get_goal"
)

// PlanGoal is the plan id of a Codex thread's goal: one entry, the objective, with its status.
const PlanGoal = "goal"

// isGoalTool reports whether name is one of Codex's goal tools.
func isGoalTool(name string) bool {
	return name == ToolCreateGoal || name == ToolUpdateGoal || name == ToolGetGoal
}

// Goal is a Codex thread goal as the goal tools report it.
type Goal struct {
	Objective   string `json:"objective"`
	Status      string `json:"status"` // active, paused, complete, blocked, budgetLimited, …
	TokenBudget *int64 `json:"tokenBudget"`
	TokensUsed  int64  `json:"tokensUsed"`
	TimeUsed    int64  `json:"timeUsedSeconds"`
}

// ParseGoalOutput reads a goal tool's output (the text Codex records, JSON inside): the goal, or
// false when there is none (no goal yet, a refusal such as "already has a goal", not JSON).
func ParseGoalOutput(output json.RawMessage) (Goal, bool) {
	text := contentText(output)
	if text == "" {
		text = string(output)
	}
	var v struct {
		Goal *Goal `json:"goal"`
	}
	if json.Unmarshal([]byte(text), &v) != nil || v.Goal == nil || strings.TrimSpace(v.Goal.Objective) == "" {
		return Goal{}, false
	}
	return *v.Goal, true
}

// goalStatus is a goal's status as a plan entry's: an active goal is in progress, a complete one
// completed, a paused one pending; any other (blocked, budget or usage limited) is kept as a
// custom value.
func goalStatus(s string) string {
	switch s {
	case "active":
		return plans.StatusInProgress
	case "complete", "completed":
		return plans.StatusCompleted
	case "paused":
		return plans.StatusPending
	}
	return wireStatus(s)
}

// goal publishes the thread's goal as it stands after a goal tool's call, replacing it whole.
func (b *batch) goal(g Goal) {
	pd := map[string]any{"goalStatus": hookkit.Truncate(g.Status, 64), "tokensUsed": g.TokensUsed}
	if g.TokenBudget != nil {
		pd["tokenBudget"] = *g.TokenBudget
	}
	if g.TimeUsed > 0 {
		pd["timeUsedSeconds"] = g.TimeUsed
	}
	entry := plans.Entry{Content: hookkit.Truncate(g.Objective, maxText), Priority: "high", Status: goalStatus(g.Status)}
	b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{
		"type": "items", "planId": PlanGoal, "entries": []plans.Entry{entry},
		"_meta": map[string]any{"plandash": pd}}})
}

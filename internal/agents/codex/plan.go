package codex

import (
	"encoding/json"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// ToolUpdatePlan is Codex's checklist tool (codex-rs/protocol/src/plan_tool.rs).
const ToolUpdatePlan = "update_plan"

// PlanStep is one update_plan item.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// PlanArgs is update_plan's arguments: an optional explanation and the whole checklist.
type PlanArgs struct {
	Explanation string     `json:"explanation,omitempty"`
	Plan        []PlanStep `json:"plan"`
}

// ParsePlanArgs reads update_plan's arguments, which Codex records as a JSON string. ok is
// false when they are not an object with a plan array; items that are not objects are skipped.
func ParsePlanArgs(arguments string) (PlanArgs, bool) {
	var v struct {
		Explanation json.RawMessage   `json:"explanation"`
		Plan        []json.RawMessage `json:"plan"`
	}
	if json.Unmarshal([]byte(arguments), &v) != nil || v.Plan == nil {
		return PlanArgs{}, false
	}
	var a PlanArgs
	_ = json.Unmarshal(v.Explanation, &a.Explanation)
	a.Plan = make([]PlanStep, 0, len(v.Plan))
	for _, raw := range v.Plan {
		var s struct {
			Step   json.RawMessage `json:"step"`
			Status json.RawMessage `json:"status"`
		}
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		var st PlanStep
		_ = json.Unmarshal(s.Step, &st.Step)
		_ = json.Unmarshal(s.Status, &st.Status)
		a.Plan = append(a.Plan, st)
	}
	return a, true
}

// Entries is the checklist as ACP plan entries. Statuses are mapped onto ACP's (the app
// server's camelCase "inProgress" included); unknown ones become "_"-prefixed custom values,
// which ACP allows, rather than entries the decoder would skip.
func (a PlanArgs) Entries() []plans.Entry {
	out := make([]plans.Entry, 0, len(a.Plan))
	for _, s := range a.Plan {
		out = append(out, plans.Entry{Content: hookkit.Truncate(s.Step, maxText), Priority: "medium", Status: wireStatus(s.Status)})
	}
	return out
}

func wireStatus(s string) string {
	switch s {
	case "", plans.StatusPending:
		return plans.StatusPending
	case plans.StatusInProgress, plans.StatusCompleted, plans.StatusCancelled:
		return s
	case "inProgress", "in-progress":
		return plans.StatusInProgress
	}
	if strings.HasPrefix(s, "_") && len(s) > 1 {
		return s
	}
	return "_" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, hookkit.Truncate(s, 64))
}

// ProposedPlan finds plan mode's <proposed_plan>…</proposed_plan> block in an assistant
// message and returns its markdown. An unclosed block runs to the end of the text.
func ProposedPlan(text string) (string, bool) {
	const open, end = "<proposed_plan>", "</proposed_plan>"
	i := strings.LastIndex(text, open)
	if i < 0 {
		return "", false
	}
	body := text[i+len(open):]
	if j := strings.Index(body, end); j >= 0 {
		body = body[:j]
	}
	body = strings.TrimSpace(body)
	return body, body != ""
}

// updatePlan publishes update_plan's checklist, replacing the plan whole; an empty list retires
// it. The explanation is kept in the plan's _meta and shown as a thought.
func (b *batch) updatePlan(l Line, callID, arguments string) {
	if callID != "" {
		if len(b.t.planCalls) >= maxPlanIDs {
			clear(b.t.planCalls)
		}
		b.t.planCalls[callID] = true
	}
	a, ok := ParsePlanArgs(arguments)
	if !ok {
		b.raw(ToolUpdatePlan, l)
		return
	}
	if a.Explanation != "" {
		b.chunk("agent_thought_chunk", "codex-plan-"+callID, "Plan: "+a.Explanation)
	}
	if len(a.Plan) == 0 {
		b.update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanItems})
		return
	}
	pd := map[string]any{"callId": callID}
	if a.Explanation != "" {
		pd["explanation"] = hookkit.Truncate(a.Explanation, maxText)
	}
	meta := map[string]any{"plandash": pd}
	b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{
		"type": "items", "planId": PlanItems, "entries": a.Entries(), "_meta": meta}})
}

// proposed publishes a plan-mode plan; the same text twice in a row (the message and the plan
// item) is one revision.
func (b *batch) proposed(md string) {
	md = strings.TrimSpace(md)
	if md == "" || md == b.t.proposed {
		return
	}
	b.t.proposed = md
	b.update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{
		"type": "markdown", "planId": PlanProposed, "content": hookkit.Truncate(md, maxPlanMarkdown),
		"_meta": map[string]any{"plandash": map[string]any{"state": "proposed"}}}})
}

// maxPlanMarkdown bounds a proposed plan.
const maxPlanMarkdown = 512 << 10

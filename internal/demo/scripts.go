package demo

import (
	"fmt"
	"strings"
	"time"
)

// script plays one session.
type script func(r *run) error

var scripts = []script{claudeTodo, planModeAgent, opencodeRefactor, dagAgent, questionAgent, idleAgent}

type step struct{ content, priority string }

// progress walks a v1 plan from pending to completed, one entry at a time, with a tool call per
// entry; status of each entry is sent whole every time, as ACP requires.
func progress(r *run, planID string, steps []step, tools [][3]string) {
	status := make([]string, len(steps))
	for i := range status {
		status[i] = "pending"
	}
	send := func() {
		entries := make([]any, len(steps))
		for i, s := range steps {
			entries[i] = msg{"content": s.content, "priority": s.priority, "status": status[i]}
		}
		if planID == "" {
			r.update(msg{"sessionUpdate": "plan", "entries": entries})
		} else {
			r.update(msg{"sessionUpdate": "plan_update", "plan": msg{"type": "items", "planId": planID, "entries": entries}})
		}
	}
	send()
	for i := range steps {
		if !r.pause(1200 * time.Millisecond) {
			return
		}
		status[i] = "in_progress"
		send()
		t := tools[i%len(tools)]
		id := fmt.Sprintf("call_%s_%d", strings.ReplaceAll(planID, "-", ""), i+1)
		r.tool(id, t[0], t[1], msg{"path": t[2]})
		if !r.pause(1500 * time.Millisecond) {
			return
		}
		r.toolDone(id, "ok: "+t[0])
		status[i] = "completed"
		send()
	}
}

// claudeTodo is Claude Code's TodoWrite turned into v1 plans (every priority "medium").
func claudeTodo(r *run) error {
	r.start("claude-agent-acp", "Claude Code", "/home/dev/shop-api", "Add rate limiting to the public API and cover it with tests", false)
	r.say("I'll add a token-bucket rate limiter in front of the public routes. Let me look at the router first.")
	if !r.pause(800 * time.Millisecond) {
		return r.err
	}
	progress(r, "", []step{
		{"Read the router and middleware setup", "medium"},
		{"Add a token-bucket limiter keyed by API key", "medium"},
		{"Return 429 with Retry-After when the bucket is empty", "medium"},
		{"Write table tests for the limiter", "medium"},
		{"Run the test suite", "medium"},
	}, [][3]string{
		{"Read internal/http/router.go", "read", "/home/dev/shop-api/internal/http/router.go"},
		{"Edit internal/http/ratelimit.go", "edit", "/home/dev/shop-api/internal/http/ratelimit.go"},
		{"go test ./...", "execute", "/home/dev/shop-api"},
	})
	r.say("Rate limiting is in place: 429 with Retry-After, and the tests pass.")
	return r.err
}

const planMarkdown = `# Migrate sessions to Redis

Sessions live in process memory today, so a deploy logs everybody out.

## Steps
- [x] Inventory every read and write of the session map
- [ ] Add a ` + "`SessionStore`" + ` interface with memory and Redis backends
- [ ] Dual-write for one release, then switch reads
- [ ] Remove the in-memory store

## Risks

| risk | mitigation |
|---|---|
| Redis outage | fall back to memory, alert |
| Larger payloads | cap session size at 16 KiB |
`

// planModeAgent advertises plan operations: a markdown plan from plan mode, an items plan, a
// design document kept in a file, and a plan removed when it is done.
func planModeAgent(r *run) error {
	r.start("claude-agent-acp", "Claude Code (plan mode)", "/home/dev/auth-service", "Plan the move of sessions to Redis, then start", true)
	r.update(msg{"sessionUpdate": "current_mode_update", "currentModeId": "plan"})
	r.say("Here is the plan. I'll keep a design doc next to it.")
	r.update(msg{"sessionUpdate": "plan_update", "plan": msg{"type": "markdown", "planId": "plan-mode", "content": planMarkdown}})
	uri := r.writeFile("session-store-design.md", "# Session store design\n\n- **Interface**: `Get`, `Put`, `Delete`, `Touch`\n- **Keys**: `sess:<id>` with a TTL equal to the idle timeout\n- **Encoding**: JSON, 16 KiB cap\n")
	if !r.pause(1500 * time.Millisecond) {
		return r.err
	}
	r.update(msg{"sessionUpdate": "plan_update", "plan": msg{"type": "file", "planId": "design-doc", "uri": uri}})
	if !r.pause(1500 * time.Millisecond) {
		return r.err
	}
	// The agent asks a person before it leaves plan mode.
	r.say("Waiting for your approval on the dashboard before I start.")
	md := planMarkdown
	decision, _, comment := r.askApproval("Migrate sessions to Redis", map[string]any{"type": "markdown", "markdown": md})
	// A review is answered as an agent should: the plan revised and submitted again, which the
	// gate shows as the next revision with the comments it addressed.
	for n := 1; decision == "changes_requested" && n <= 3; n++ {
		r.say("Revising the plan after your review.")
		md += fmt.Sprintf("\n## Revision %d\n\n- Reworked after the review:\n\n%s\n", n, indent(comment))
		decision, _, comment = r.askApproval("Migrate sessions to Redis", map[string]any{"type": "markdown", "markdown": md})
	}
	switch decision {
	case "rejected", "changes_requested":
		r.say("Understood, not starting. Reason given: " + comment)
		return r.err
	case "modified":
		r.say("Going ahead with your edited plan.")
	default:
		r.say("Approved. Starting.")
	}
	r.update(msg{"sessionUpdate": "current_mode_update", "currentModeId": "code"})
	progress(r, "redis-migration", []step{
		{"Add the SessionStore interface", "high"},
		{"Implement the Redis backend", "high"},
		{"Dual-write behind a flag", "medium"},
		{"Load test with 10k sessions", "low"},
	}, [][3]string{
		{"Edit session/store.go", "edit", "/home/dev/auth-service/session/store.go"},
		{"Search for sessions[", "search", "/home/dev/auth-service"},
	})
	r.update(msg{"sessionUpdate": "plan_update", "plan": msg{"type": "markdown", "planId": "plan-mode",
		"content": strings.Replace(strings.Replace(planMarkdown, "- [ ] Add", "- [x] Add", 1), "- [ ] Dual", "- [x] Dual", 1)}})
	if !r.pause(2 * time.Second) {
		return r.err
	}
	r.update(msg{"sessionUpdate": "plan_removed", "planId": "redis-migration"})
	r.say("The migration checklist is done and retired; the plan and design doc stay for review.")
	return r.err
}

// opencodeRefactor mixes priorities, cancels a step, and sends a custom plan type.
func opencodeRefactor(r *run) error {
	r.start("opencode", "opencode", "/home/dev/web-frontend", "Split the 2,000-line Dashboard component", true)
	r.update(msg{"sessionUpdate": "plan_update", "plan": msg{"type": "_opencode.ai/budget", "planId": "budget",
		"tokens": msg{"used": 18250, "limit": 200000}, "files": []any{"src/Dashboard.tsx", "src/widgets/"}}})
	steps := []step{
		{"Map the component's state and props", "high"},
		{"Extract <Filters> and <Chart> components", "high"},
		{"Move data fetching into a hook", "medium"},
		{"Port the legacy CSV export", "low"},
		{"Update snapshot tests", "medium"},
	}
	status := []string{"pending", "pending", "pending", "pending", "pending"}
	send := func() {
		entries := make([]any, len(steps))
		for i, s := range steps {
			entries[i] = msg{"content": s.content, "priority": s.priority, "status": status[i]}
		}
		r.update(msg{"sessionUpdate": "plan", "entries": entries})
	}
	send()
	for i := range steps {
		if !r.pause(1800 * time.Millisecond) {
			return r.err
		}
		if i == 3 {
			status[i] = "cancelled" // the user decided the export can go
			send()
			continue
		}
		status[i] = "in_progress"
		send()
		r.tool(fmt.Sprintf("oc_%d", i), "Edit "+[]string{"Dashboard.tsx", "Filters.tsx", "useDashboardData.ts", "", "Dashboard.test.tsx"}[i], "edit", msg{"file": "src/"})
		if !r.pause(1400 * time.Millisecond) {
			return r.err
		}
		r.toolDone(fmt.Sprintf("oc_%d", i), "applied")
		status[i] = "completed"
		send()
	}
	return r.err
}

// dagAgent plans as a graph of tool calls wired through shared state, sent the recommended way:
// an items plan (a checklist for clients that know nothing of graphs) carrying the calls in
// _meta. Each node follows its ACP tool call live.
func dagAgent(r *run) error {
	r.start("toolsmith", "Toolsmith agent", "/home/dev/crm", "Brief me on Alice before the call", true)
	calls := []msg{
		{"_id": "profile", "_title": "Fetch profile", "_tool": "fetchUserProfile", "userName": "Alice", "_outputPath": "†state.profile", "_toolCallId": "dag_1"},
		{"_id": "orders", "_title": "Fetch orders", "_tool": "listOrders", "customer": "Alice", "since": "2026-01-01", "_outputPath": "†state.orders", "_toolCallId": "dag_2"},
		{"_id": "tickets", "_title": "Open tickets", "_tool": "searchTickets", "query": "requester:alice status:open", "_outputPath": "†state.tickets", "_toolCallId": "dag_3"},
		{"_id": "summary", "_title": "Summarise profile", "_tool": "summarize", "text": "†state.profile.bio", "_outputPath": "†state.summary", "_toolCallId": "dag_4"},
		{"_id": "brief", "_title": "Write the brief", "_tool": "composeBrief", "summary": "†state.summary", "orders": "†state.orders", "tickets": "†state.tickets", "_outputPath": "†state.brief", "_toolCallId": "dag_5"},
	}
	entries := make([]any, len(calls))
	for i, c := range calls {
		entries[i] = msg{"content": c["_title"], "priority": "medium", "status": "pending"}
	}
	r.update(msg{"sessionUpdate": "plan_update", "plan": msg{"type": "items", "planId": "briefing", "entries": entries,
		"_meta": msg{"plandash": msg{"calls": calls}}}})
	order := [][]int{{0, 1, 2}, {3}, {4}}
	for _, level := range order {
		if !r.pause(1500 * time.Millisecond) {
			return r.err
		}
		for _, i := range level {
			r.tool(fmt.Sprintf("dag_%d", i+1), calls[i]["_title"].(string), "fetch", calls[i])
		}
		if !r.pause(2 * time.Second) {
			return r.err
		}
		for _, i := range level {
			r.toolDone(fmt.Sprintf("dag_%d", i+1), "ok")
		}
	}
	r.say("The brief is ready.")
	return r.err
}

// indent quotes a review's text as a markdown block quote inside the revised plan.
func indent(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}

package claude

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

const fixtureSession = "3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c"

// TestApplyThroughDomain sends a whole Claude Code session, fixture by fixture, through the
// Service into a real plans.Service on SQLite and checks what the pages would show.
func TestApplyThroughDomain(t *testing.T) {
	ctx := context.Background()
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	for _, name := range []string{
		"session_start.json", "user_prompt_submit.json", "pre_todowrite.json", "post_todowrite.json",
		"post_taskupdate_progress.json", // out of order: the update before its create
		"post_taskcreate_1.json", "post_taskcreate_10.json", "post_taskcreate_2.json", "task_created.json",
		"post_taskupdate_deleted.json", "task_completed.json",
		"pre_bash.json", "post_bash.json", "permission_exitplanmode.json", "post_exitplanmode.json",
		"notification.json", "pre_compact.json", "stop.json",
	} {
		answer, err := svc.Handle(ctx, fixture(t, name))
		if err != nil || len(answer) != 0 {
			t.Fatalf("%s: answer %q, err %v", name, answer, err)
		}
	}
	d, err := p.Session(ctx, SessionKey(fixtureSession))
	if err != nil {
		t.Fatal(err)
	}
	if d.Session.Name() != "Claude Code" || d.Session.Agent != AgentName || d.Session.Cwd != "/home/dev/shop" || d.Session.Ended {
		t.Errorf("session: %+v", d.Session)
	}
	byID := map[string]plans.Plan{}
	for _, pl := range d.Plans {
		byID[pl.ID] = pl
	}

	todos := byID[PlanTodos]
	if got := contents(todos.Entries); !reflect.DeepEqual(got, []string{"Read the checkout handler", "Add a token bucket limiter", "Writing tests"}) {
		t.Errorf("todos: %v", got)
	}
	if todos.Revision != 2 || todos.Kind != plans.KindItems {
		t.Errorf("todos revision %d kind %s", todos.Revision, todos.Kind)
	}

	tasks := byID[PlanTasks]
	got := TasksFromEntries(tasks.Entries)
	var ids, states []string
	for _, tk := range got {
		ids, states = append(ids, tk.ID), append(states, tk.Status)
	}
	if !reflect.DeepEqual(ids, []string{"1", "3", "10"}) || !reflect.DeepEqual(states, []string{"completed", "pending", "pending"}) {
		t.Errorf("tasks: ids %v states %v", ids, states)
	}
	if got[0].Subject != "Implement user authentication" || got[0].ActiveForm != "Implementing user authentication" || got[0].Description == "" {
		t.Errorf("task 1 lost its fields across out-of-order events: %+v", got[0])
	}

	plan := byID[PlanMode]
	if plan.Kind != plans.KindMarkdown || !strings.HasPrefix(plan.Markdown, "# Add rate limiting") || !strings.Contains(string(plan.Meta), "add-rate-limiting-snug-otter.md") {
		t.Errorf("plan-mode plan: %+v", plan)
	}

	if len(d.ToolCalls) != 1 || d.ToolCalls[0].Status != "completed" || d.ToolCalls[0].Title != "Bash: Run test suite" {
		t.Errorf("tool calls: %+v", d.ToolCalls)
	}
	kinds := map[string]string{}
	for _, a := range d.Activity {
		kinds[a.Kind] += a.Text + "|"
	}
	for kind, want := range map[string]string{"prompt": "Add rate limiting to the checkout API", "agent_message_chunk": "42 tests pass", "notice": "", "_claude_hook": ""} {
		if text, ok := kinds[kind]; !ok || !strings.Contains(text, want) {
			t.Errorf("activity %s: %q (all: %v)", kind, text, kinds)
		}
	}

	if _, err := svc.Handle(ctx, fixture(t, "session_end.json")); err != nil {
		t.Fatal(err)
	}
	s, err := p.SessionOnly(ctx, SessionKey(fixtureSession))
	if err != nil || !s.Ended {
		t.Errorf("after SessionEnd: %+v %v", s, err)
	}
}

// TestApplyNamesSessionFirstSeenMidway: hooks installed mid-session never see SessionStart;
// the session still shows Claude Code and its cwd.
func TestApplyNamesSessionFirstSeenMidway(t *testing.T) {
	ctx := context.Background()
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	if _, err := svc.Handle(ctx, fixture(t, "pre_todowrite.json")); err != nil {
		t.Fatal(err)
	}
	s, err := p.SessionOnly(ctx, SessionKey(fixtureSession))
	if err != nil || s.Name() != "Claude Code" || s.Cwd != "/home/dev/shop" {
		t.Errorf("%+v %v", s, err)
	}
}

func TestHandleRefusesGarbage(t *testing.T) {
	svc := NewService(newPlans(t), nil, Config{Host: "h"})
	for _, body := range []string{`{"a":`, `[]`, `{"hook_event_name":"Stop"}`} {
		if _, err := svc.Handle(context.Background(), []byte(body)); err == nil || errs.KindOf(err) != errs.Invalid {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func contents(es []plans.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Content
	}
	return out
}

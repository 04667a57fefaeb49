package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// post is one plugin post: the event as OpenCode's bus carries it, with where it happened.
func post(t *testing.T, typ string, props any, dir string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": typ, "properties": props, "directory": dir, "host": "laptop"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// handled is the outcome of a Handle that runs in its own goroutine.
type handled struct {
	out []byte
	err error
}

func handleAsync(ctx context.Context, s *HookService, body []byte) <-chan handled {
	ch := make(chan handled, 1)
	go func() {
		out, err := s.Handle(ctx, body)
		ch <- handled{out, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan handled) handled {
	t.Helper()
	select {
	case h := <-ch:
		return h
	case <-time.After(30 * time.Second):
		t.Fatal("Handle did not return")
	}
	return handled{}
}

// TestHookTodosAndInput: todo lists become the session's checklist, named after the directory
// and host the plugin reports; unusable bodies are refused as invalid; events plandash does not
// hold are answered at once with nothing.
func TestHookTodosAndInput(t *testing.T) {
	r := newRig(t)
	s := NewHookService(r.plans, r.gate, HookConfig{Host: "server"})
	ctx := context.Background()
	todos := map[string]any{"sessionID": "ses_1", "todos": []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"}}}
	for _, tt := range []struct {
		name    string
		body    []byte
		invalid bool
	}{
		{"todos", post(t, EventTodoUpdated, todos, "/work/p"), false},
		{"not json", []byte("{nope"), true},
		{"no type", []byte(`{"properties":{}}`), true},
		{"todos without a session", post(t, EventTodoUpdated, map[string]any{"todos": []any{}}, ""), true},
		{"other question", post(t, EventQuestionAsked, map[string]any{"id": "que_1", "sessionID": "ses_1",
			"questions": []any{map[string]any{"question": "Which colour?", "header": "Colour"}}}, "/work/p"), false},
		{"permission not held", post(t, EventPermissionAsked, map[string]any{"id": "per_1", "sessionID": "ses_1", "permission": "bash"}, ""), false},
		{"unknown event", post(t, "session.status", map[string]any{"sessionID": "ses_1"}, ""), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := s.Handle(ctx, tt.body)
			if tt.invalid {
				if errs.KindOf(err) != errs.Invalid {
					t.Errorf("err %v, want invalid", err)
				}
				return
			}
			if err != nil || len(out) != 0 {
				t.Errorf("Handle = %q, %v", out, err)
			}
		})
	}
	d, err := r.plans.Session(ctx, OpenCode.SessionKey("ses_1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Plans) != 1 || d.Plans[0].ID != PlanTodos || d.Plans[0].Entries[0].Content != "Parse" {
		t.Errorf("plans %+v", d.Plans)
	}
	if d.Session.Cwd != "/work/p" || d.Session.Name() != AgentTitle {
		t.Errorf("session %+v", d.Session)
	}
}

// TestHookPlanExit: plan_exit's question waits at the gate with the plan file's content (the
// project is one of the configured plan roots, as under --allow-root); the
// person's decision, OpenCode's own answer, or the plugin going away ends the wait, and only
// the person's decision is answered with a reply for OpenCode.
func TestHookPlanExit(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".opencode", "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".opencode", "plans", "p.md"), []byte("# Parser\n\n1. Lex\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	question := func(id string) []byte {
		return post(t, EventQuestionAsked, map[string]any{"id": id, "sessionID": "ses_2", "questions": []any{map[string]any{
			"question": "Plan at .opencode/plans/p.md is complete. Would you like to switch to the build agent and start implementing?",
			"header":   "Build Agent"}}}, dir)
	}
	for _, tt := range []struct {
		name  string
		end   func(t *testing.T, r *rig, s *HookService, req approval.Request, cancel context.CancelFunc)
		reply string // "" when nothing is sent to OpenCode
		by    string
	}{
		{"approved", func(t *testing.T, r *rig, _ *HookService, req approval.Request, _ context.CancelFunc) {
			decide(t, r, req.ID, approval.Approve)
		}, `{"reply":{"path":"/question/que_approved/reply","body":{"answers":[["Yes"]]}}}`, "ann"},
		{"rejected", func(t *testing.T, r *rig, _ *HookService, req approval.Request, _ context.CancelFunc) {
			decide(t, r, req.ID, approval.Reject)
		}, `{"reply":{"path":"/question/que_rejected/reply","body":{"answers":[["No"]]}}}`, "ann"},
		{"answered in OpenCode", func(t *testing.T, _ *rig, s *HookService, _ approval.Request, _ context.CancelFunc) {
			if _, err := s.Handle(context.Background(), post(t, EventQuestionReplied,
				map[string]any{"sessionID": "ses_2", "requestID": "que_answered in OpenCode", "answers": [][]string{{"No"}}}, dir)); err != nil {
				t.Error(err)
			}
		}, "", TerminalDecider},
		{"approved in OpenCode", func(t *testing.T, _ *rig, s *HookService, _ approval.Request, _ context.CancelFunc) {
			if _, err := s.Handle(context.Background(), post(t, EventQuestionReplied,
				map[string]any{"sessionID": "ses_2", "requestID": "que_approved in OpenCode", "answers": [][]string{{"Yes"}}}, dir)); err != nil {
				t.Error(err)
			}
		}, "", TerminalDecider},
		{"plugin gone", func(_ *testing.T, _ *rig, _ *HookService, _ approval.Request, cancel context.CancelFunc) {
			cancel()
		}, "", TerminalDecider},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			s := NewHookService(r.plans, r.gate, HookConfig{Host: "server", PlanRoots: []string{dir}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := handleAsync(ctx, s, question("que_"+tt.name))
			req := r.request(t)
			if req.Plan.Markdown != "# Parser\n\n1. Lex\n" || req.Title != "Plan: Parser" || req.SessionID != OpenCode.SessionKey("ses_2") {
				t.Errorf("request %+v", req)
			}
			tt.end(t, r, s, req, cancel)
			h := wait(t, ch)
			if h.err != nil && ctx.Err() == nil {
				t.Errorf("Handle: %v", h.err)
			}
			if string(h.out) != tt.reply {
				t.Errorf("reply %s, want %s", h.out, tt.reply)
			}
			got, err := r.gate.Get(context.Background(), req.ID)
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "plugin gone" {
				// Nobody answered: OpenCode's prompt has it, and the record does not say rejected.
				if got.Status != approval.Elsewhere || got.Decision != nil || got.Handover == nil || got.Handover.By != tt.by || got.Then != PromptDecides {
					t.Errorf("plugin gone: %s %+v %+v then %q; want handed to OpenCode's prompt", got.Status, got.Decision, got.Handover, got.Then)
				}
				return
			}
			if got.Decision == nil || got.Decision.By != tt.by {
				t.Errorf("decision %+v, want by %q", got.Decision, tt.by)
			}
			// Answered in OpenCode: the record says what was answered there.
			if want, ok := map[string]approval.Status{"answered in OpenCode": approval.Rejected, "approved in OpenCode": approval.Approved}[tt.name]; ok && got.Status != want {
				t.Errorf("answered in OpenCode: recorded %s (%q), want %s", got.Status, got.Decision.Comment, want)
			}
		})
	}
}

// TestHookPermission: permission requests are held only when configured, and the decision
// becomes OpenCode's reply: once, always (said in the comment), or reject with the comment.
func TestHookPermission(t *testing.T) {
	for i, tt := range []struct {
		action  approval.Action
		comment string
		body    string
	}{
		{approval.Approve, "", `{"reply":"once"}`},
		{approval.Approve, "always", `{"reply":"always"}`},
		{approval.Reject, "use the Makefile", `{"message":"use the Makefile","reply":"reject"}`},
	} {
		t.Run(fmt.Sprint(tt.action, i), func(t *testing.T) {
			r := newRig(t)
			s := NewHookService(r.plans, r.gate, HookConfig{Permissions: true})
			id := fmt.Sprintf("per_%d", i)
			ch := handleAsync(context.Background(), s, post(t, EventPermissionAsked, map[string]any{"id": id, "sessionID": "ses_3",
				"permission": "bash", "patterns": []string{"make test"}, "always": []string{"make *"}}, "/p"))
			req := r.request(t)
			if _, err := r.gate.Decide(context.Background(), req.ID, approval.DecisionInput{Action: tt.action, By: "ann", Comment: tt.comment}); err != nil {
				t.Fatal(err)
			}
			h := wait(t, ch)
			want := `{"reply":{"path":"/permission/` + id + `/reply","body":` + tt.body + `}}`
			if h.err != nil || string(h.out) != want {
				t.Errorf("Handle = %s, %v; want %s", h.out, h.err, want)
			}
		})
	}
}

func decide(t *testing.T, r *rig, id string, a approval.Action) {
	t.Helper()
	in := approval.DecisionInput{Action: a, By: "ann"}
	if a == approval.Reject {
		in.Comment = "keep planning" // the gate wants a reason for a rejection
	}
	if _, err := r.gate.Decide(context.Background(), id, in); err != nil {
		t.Fatal(err)
	}
}

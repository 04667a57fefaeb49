package opencode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

func needAgents(t *testing.T) {
	t.Helper()
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
}

// rig is a real plans.Service and approval.Gate on SQLite, with the requests the gate receives.
type rig struct {
	plans   *plans.Service
	gate    *approval.Gate
	created chan approval.Request
}

func newRig(t *testing.T) *rig {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	g, err := approval.New(context.Background(), db.Approvals(), approval.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{plans: plans.NewService(db.Plans(), plans.Config{Idle: time.Hour}), gate: g, created: make(chan approval.Request, 8)}
	g.OnChange(func(c approval.Change) {
		if c.Request != nil && !c.Request.Decided() {
			r.created <- *c.Request
		}
	})
	return r
}

// watch runs a Watcher until the test ends.
func (r *rig) watch(t *testing.T, url string, opts Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = NewWatcher(url, r.plans, r.gate, opts).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

func (r *rig) request(t *testing.T) approval.Request {
	t.Helper()
	select {
	case req := <-r.created:
		return req
	case <-time.After(2 * time.Minute):
		t.Fatal("no request reached the gate")
	}
	return approval.Request{}
}

// TestRealServePlanExit: the REAL `opencode serve` runs a scripted todowrite and plan_exit;
// the watcher puts the todos into a real plans.Service and the plan at a real gate, and the
// decision answers OpenCode's question: approve → Yes (plan_exit completes), reject → No.
func TestRealServePlanExit(t *testing.T) {
	needAgents(t)
	for _, tt := range []struct {
		action approval.Action
		answer string
	}{{approval.Approve, "Yes"}, {approval.Reject, "No"}} {
		t.Run(tt.answer, func(t *testing.T) {
			srv := agenttest.NewModelServer(t)
			o := agenttest.NewOpenCode(t, srv, nil)
			o.Env = append(o.Env, "OPENCODE_EXPERIMENTAL_PLAN_MODE=1")
			todos := []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"},
				map[string]any{"content": "Fuzz", "status": "pending", "priority": "low"}}
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}},
				agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "plan_exit", Input: map[string]any{}}},
				agenttest.Turn{Text: "Agenttest turn over."})
			s := o.Serve()
			r := newRig(t)
			onConnect, wait := connected(t)
			r.watch(t, s.URL, Options{Host: "box", Questions: true, PlanRoots: []string{o.Home}, OnConnect: onConnect})
			wait() // subscribed before the prompt, so no event is missed
			session := s.Prompt("plan", "plan the parser")

			req := r.request(t)
			if req.SessionID != OpenCode.SessionKey(session) || req.Agent != AgentTitle {
				t.Errorf("request %+v", req)
			}
			d, err := r.plans.Session(context.Background(), OpenCode.SessionKey(session))
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]plans.Plan{}
			for _, p := range d.Plans {
				byID[p.ID] = p
			}
			es := byID[PlanTodos].Entries
			if len(es) != 2 || es[0].Content != "Parse" || es[0].Priority != "high" || es[0].Status != "in_progress" || es[1].Priority != "low" {
				t.Errorf("todos %+v", es)
			}
			if d.Session.Name() != AgentTitle || d.Session.Cwd != o.Dir {
				t.Errorf("session %+v", d.Session)
			}
			if _, ok := byID[PlanMode]; !ok {
				t.Errorf("no plan-mode plan: %+v", d.Plans)
			}
			in := approval.DecisionInput{Action: tt.action, By: "ann"}
			if tt.action == approval.Reject {
				in.Comment = "keep planning"
			}
			if _, err := r.gate.Decide(context.Background(), req.ID, in); err != nil {
				t.Fatal(err)
			}
			ev := s.WaitEvent(2*time.Minute, EventQuestionReplied, nil)
			var rep struct {
				Answers [][]string `json:"answers"`
			}
			if err := json.Unmarshal(ev.Properties, &rep); err != nil || len(rep.Answers) != 1 || rep.Answers[0][0] != tt.answer {
				t.Errorf("question.replied %s (%v)", ev.Properties, err)
			}
		})
	}
}

// TestRealServePermission: a bash permission request is held at the gate and the approval
// replies "once"; OpenCode runs the command.
func TestRealServePermission(t *testing.T) {
	needAgents(t)
	srv := agenttest.NewModelServer(t)
	o := agenttest.NewOpenCode(t, srv, map[string]any{"permission": map[string]any{"bash": "ask"}})
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "bash", Input: map[string]any{"command": "echo hi", "description": "Say hi"}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	s := o.Serve()
	r := newRig(t)
	onConnect, wait := connected(t)
	r.watch(t, s.URL, Options{Host: "box", Permissions: true, OnConnect: onConnect})
	wait()
	s.Prompt("", "say hi")
	req := r.request(t)
	if !strings.Contains(req.Plan.Markdown, "echo hi") || req.Title != "Permission: bash" {
		t.Errorf("request %+v", req)
	}
	if _, err := r.gate.Decide(context.Background(), req.ID, approval.DecisionInput{Action: approval.Approve, By: "ann"}); err != nil {
		t.Fatal(err)
	}
	ev := s.WaitEvent(2*time.Minute, EventPermissionReplied, nil)
	var rep Replied
	if err := json.Unmarshal(ev.Properties, &rep); err != nil || rep.Reply != "once" {
		t.Errorf("permission.replied %s (%v)", ev.Properties, err)
	}
}

// connected returns Options' OnConnect and a wait for the first connection.
func connected(t *testing.T) (func(), func()) {
	ch := make(chan struct{}, 16)
	return func() {
			select {
			case ch <- struct{}{}:
			default:
			}
		}, func() {
			t.Helper()
			select {
			case <-ch:
			case <-time.After(time.Minute):
				t.Fatal("the watcher did not connect")
			}
		}
}

package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
)

// envHookURL makes this test binary act as `plandash hook codex` (RunHook posting to the URL)
// when Codex runs it as its Stop hook.
const envHookURL = "PLANDASH_CODEX_TEST_HOOK_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(envHookURL); url != "" {
		_ = RunHook(context.Background(), os.Stdin, os.Stdout, httpPoster{url}, HookOptions{Host: "hook-host"})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func needRealCLI(t *testing.T) {
	t.Helper()
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
}

// TestRealCodexRolloutTailed: the real Codex CLI writes its rollout while the Tailer follows
// CODEX_HOME/sessions, and the update_plan checklist lands in a real plans.Service on SQLite.
func TestRealCodexRolloutTailed(t *testing.T) {
	needRealCLI(t)
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCodex(t, srv, "", nil)
	p := newPlans(t)
	sessions := mkdir(t, filepath.Join(c.Home, "sessions"))
	runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{StateDir: t.TempDir(), Host: "devbox", Rescan: time.Hour}))

	args := map[string]any{"explanation": "first cut", "plan": []any{
		map[string]any{"step": "Read config loader", "status": "completed"},
		map[string]any{"step": "Add env override", "status": "in_progress"},
		map[string]any{"step": "Write tests", "status": "pending"},
	}}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "update_plan", Input: args}}, agenttest.Turn{Text: "Agenttest turn over."})
	res := c.Exec(3*time.Minute, "plan the env override")
	if res.Err != nil {
		t.Fatalf("codex exec: %v\nstderr: %s\nrequests:\n%s", res.Err, res.Stderr, srv.Summary())
	}
	rollouts := c.Rollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts %v", rollouts)
	}
	sid := SessionKey(ThreadIDFromPath(rollouts[0]))
	want := "Read config loader=completed,Add env override=in_progress,Write tests=pending"
	waitFor(t, time.Minute, func() (bool, string) {
		s, _ := planState(p, sid, PlanItems)
		return s == want, "plan " + s
	})
	d, err := p.Session(context.Background(), sid)
	if err != nil || d.Session.Cwd != c.Dir || d.Session.Name() != "Codex" {
		t.Errorf("session %+v %v", d.Session, err)
	}
	if pl := planByID(t, d, PlanItems); !strings.Contains(string(pl.Meta), "first cut") || pl.Revision != 1 {
		t.Errorf("plan meta %s revision %d", pl.Meta, pl.Revision)
	}
}

// TestRealCodexFirstSession is issue 25's item 8 with the real CLI: CODEX_HOME has no sessions
// directory when the Tailer starts (a user's first Codex session), Codex creates it with its
// dated subdirectories, and the plan arrives though rescans are an hour apart.
func TestRealCodexFirstSession(t *testing.T) {
	needRealCLI(t)
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCodex(t, srv, "", nil)
	p := newPlans(t)
	sessions := filepath.Join(c.Home, "sessions")
	if _, err := os.Stat(sessions); err == nil {
		t.Fatalf("%s exists before the first session", sessions)
	}
	runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{StateDir: t.TempDir(), Host: "devbox", Rescan: time.Hour}))
	args := map[string]any{"plan": []any{map[string]any{"step": "First step", "status": "in_progress"}}}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "update_plan", Input: args}}, agenttest.Turn{Text: "Agenttest turn over."})
	if res := c.Exec(3*time.Minute, "plan something"); res.Err != nil {
		t.Fatalf("codex exec: %v\nstderr: %s", res.Err, res.Stderr)
	}
	rollouts := c.Rollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts %v", rollouts)
	}
	sid := SessionKey(ThreadIDFromPath(rollouts[0]))
	waitFor(t, time.Minute, func() (bool, string) {
		s, _ := planState(p, sid, PlanItems)
		return s == "First step=in_progress", "plan " + s
	})
}

// TestRealCodexStopGate: the real Codex CLI runs this test binary as its Stop hook (installed by
// MergeHooks, trusted as a user does in /hooks), which runs
// RunHook against a real server (Service.Handle, real gate). The first plan is rejected with
// feedback at the gate: Codex blocks the stop and sends the feedback to the model, which
// revises; the revised plan is approved and the turn ends.
func TestRealCodexStopGate(t *testing.T) {
	needRealCLI(t)
	rig := newHookRig(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// hooks.json exactly as Install writes it, with this binary as the plandash command; the
	// hook inherits Codex's environment, which names the server.
	hooks, _, err := mergeHooks(nil, &InstallOptions{Command: exe, Timeout: 600})
	if err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCodex(t, srv, "", json.RawMessage(hooks))
	c.Env = append(c.Env, envHookURL+"="+rig.url+"/api/v1/hooks/codex")
	const feedback = "add a step for fuzz tests"
	srv.Script(agenttest.Turn{Text: "My plan:\n<proposed_plan>\n# Parser\n\n1. Tokenize\n</proposed_plan>"},
		agenttest.Turn{Text: "Revised:\n<proposed_plan>\n# Parser\n\n1. Tokenize\n2. Fuzz\n</proposed_plan>"})

	type decided struct {
		plans []string
		err   error
	}
	done := make(chan decided, 1)
	go func() {
		var d decided
		for i, in := range []approval.DecisionInput{{Action: approval.Reject, By: "ann", Comment: feedback}, {Action: approval.Approve, By: "ann"}} {
			select {
			case req := <-rig.created:
				d.plans = append(d.plans, req.Plan.Markdown)
				if _, err := rig.gate.Decide(context.Background(), req.ID, in); err != nil {
					d.err = err
				}
			case <-time.After(3 * time.Minute):
				d.err = fmt.Errorf("request %d never reached the gate", i+1)
			}
			if d.err != nil {
				break
			}
		}
		done <- d
	}()
	res := c.Exec(4*time.Minute, "plan the parser")
	d := <-done
	if res.Err != nil || d.err != nil {
		t.Fatalf("codex exec: %v; gate: %v\nstderr: %s\nrequests:\n%s", res.Err, d.err, res.Stderr, srv.Summary())
	}
	if len(d.plans) != 2 || d.plans[0] != "# Parser\n\n1. Tokenize" || !strings.Contains(d.plans[1], "2. Fuzz") {
		t.Errorf("plans at the gate: %q", d.plans)
	}
	main := srv.MainRequests()
	if len(main) != 2 {
		t.Fatalf("model requests %d, want 2:\n%s", len(main), srv.Summary())
	}
	if !strings.Contains(string(main[1].Body), "The user asked for changes to your plan in plandash: "+feedback) {
		t.Errorf("the second model request lacks the feedback:\n%s", main[1].Body)
	}
}

// TestRealCodexGoal: with a generic provider the real Codex CLI offers create_goal and
// update_goal (not update_plan); the Tailer shows the thread's goal from the calls' outputs in
// the rollout: the objective, completed once update_goal marked it so, with its token budget.
func TestRealCodexGoal(t *testing.T) {
	needRealCLI(t)
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCodex(t, srv, "", nil)
	p := newPlans(t)
	sessions := mkdir(t, filepath.Join(c.Home, "sessions"))
	runTailer(t, NewTailer(sessions, ApplyTo(p, nil), TailerOptions{StateDir: t.TempDir(), Host: "devbox", Rescan: time.Hour}))
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolCreateGoal, Input: map[string]any{"objective": "Ship the parser with fuzz tests", "token_budget": 50000}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: ToolUpdateGoal, Input: map[string]any{"status": "complete"}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	res := c.Exec(3*time.Minute, "set a goal")
	if res.Err != nil {
		t.Fatalf("codex exec: %v\nstderr: %s\nrequests:\n%s", res.Err, res.Stderr, srv.Summary())
	}
	if tools := srv.MainRequests()[0].ToolNames(); !slices.Contains(tools, ToolCreateGoal) || !slices.Contains(tools, ToolUpdateGoal) {
		t.Errorf("offered tools %v", tools)
	}
	rollouts := c.Rollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts %v", rollouts)
	}
	sid := SessionKey(ThreadIDFromPath(rollouts[0]))
	waitFor(t, time.Minute, func() (bool, string) {
		s, _ := planState(p, sid, PlanGoal)
		return s == "Ship the parser with fuzz tests=completed", "goal " + s
	})
	d, err := p.Session(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if g := planByID(t, d, PlanGoal); !strings.Contains(string(g.Meta), `"tokenBudget":50000`) || !strings.Contains(string(g.Meta), `"goalStatus":"complete"`) || g.Revision != 2 {
		t.Errorf("goal meta %s revision %d", g.Meta, g.Revision)
	}
}

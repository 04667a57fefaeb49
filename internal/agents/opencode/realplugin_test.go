package opencode_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/agents/opencode"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/web"
)

// servedApp is the whole plandash application on a real port, with its token in its data
// directory (as `plandash serve` keeps it).
func servedApp(t *testing.T) (*app.App, string, string) {
	t.Helper()
	data := t.TempDir()
	a, err := app.Open(context.Background(), app.Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, PlansDir: filepath.Join(data, "plans"), Idle: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return a, "http://" + ln.Addr().String(), data
}

// pending waits for the gate's first pending request.
func pending(t *testing.T, g *approval.Gate) approval.Request {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rs, err := g.Pending(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) > 0 {
			return rs[0]
		}
		if time.Now().After(deadline) {
			t.Fatal("no request reached the gate")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// decided waits until request id is decided.
func decided(t *testing.T, g *approval.Gate, id string) approval.Request {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r, err := g.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Decided() {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("request %s still pending", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRealPluginPlanExit: `plandash install opencode --project` writes the plugin into a
// project; the REAL OpenCode (`opencode serve`, whose port plandash is never told) loads it and
// runs a scripted todowrite and plan_exit. The todos reach a real plandash through the plugin,
// the plan waits at plandash's gate, and the person's decision answers OpenCode's question
// through the plugin's client. When OpenCode's own prompt is answered first, plandash's request
// is closed as answered there. (OpenCode installs @opencode-ai/plugin from npm into a config
// directory that has plugins, so each case takes a minute or more.)
func TestRealPluginPlanExit(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	for _, tt := range []struct {
		name   string
		inTUI  bool // OpenCode's own prompt answers first
		answer string
	}{{"plandash decides", false, "Yes"}, {"OpenCode answers first", true, "No"}} {
		t.Run(tt.name, func(t *testing.T) {
			a, base, data := servedApp(t)
			srv := agenttest.NewModelServer(t)
			o := agenttest.NewOpenCode(t, srv, nil)
			o.Env = append(o.Env, "OPENCODE_EXPERIMENTAL_PLAN_MODE=1")
			if _, err := opencode.InstallPlugin(opencode.PluginDir(o.Dir, os.Getenv),
				opencode.PluginOptions{Server: base, TokenFile: client.TokenFile(data)}); err != nil {
				t.Fatal(err)
			}
			todos := []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"},
				map[string]any{"content": "Fuzz", "status": "pending", "priority": "low"}}
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}},
				agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "plan_exit", Input: map[string]any{}}},
				agenttest.Turn{Text: "Agenttest turn over."})
			s := o.Serve()
			session := s.Prompt("plan", "plan the parser")

			req := pending(t, a.Gate)
			if req.SessionID != opencode.OpenCode.SessionKey(session) || req.Agent != opencode.AgentTitle {
				t.Errorf("request %+v", req)
			}
			d, err := a.Plans.Session(context.Background(), opencode.OpenCode.SessionKey(session))
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]plans.Plan{}
			for _, p := range d.Plans {
				byID[p.ID] = p
			}
			es := byID[opencode.PlanTodos].Entries
			if len(es) != 2 || es[0].Content != "Parse" || es[0].Status != "in_progress" || es[1].Priority != "low" {
				t.Errorf("todos %+v", es)
			}
			if d.Session.Cwd != o.Dir {
				t.Errorf("session cwd %q, want %q", d.Session.Cwd, o.Dir)
			}
			if _, ok := byID[opencode.PlanMode]; !ok {
				t.Errorf("no plan-mode plan: %+v", d.Plans)
			}
			if tt.inTUI {
				asked := s.WaitEvent(time.Minute, opencode.EventQuestionAsked, nil)
				var q opencode.QuestionAsked
				if err := json.Unmarshal(asked.Properties, &q); err != nil {
					t.Fatal(err)
				}
				s.Do("POST", "/question/"+q.ID+"/reply", map[string]any{"answers": [][]string{{tt.answer}}}, nil)
				closed := decided(t, a.Gate, req.ID)
				// The record says what was answered in OpenCode: "Yes" approved, "No" declined.
				want, status := "answered in OpenCode — declined", approval.Rejected
				if tt.answer == "Yes" {
					want, status = "answered in OpenCode — approved", approval.Approved
				}
				if closed.Decision.By != opencode.TerminalDecider || closed.Decision.Comment != want || closed.Status != status {
					t.Errorf("request closed as %s %+v, want %s %q", closed.Status, closed.Decision, status, want)
				}
			} else if _, err := a.Gate.Decide(context.Background(), req.ID, approval.DecisionInput{Action: approval.Approve, By: "ann"}); err != nil {
				t.Fatal(err)
			}
			ev := s.WaitEvent(2*time.Minute, opencode.EventQuestionReplied, nil)
			var rep struct {
				Answers [][]string `json:"answers"`
			}
			if err := json.Unmarshal(ev.Properties, &rep); err != nil || len(rep.Answers) != 1 || rep.Answers[0][0] != tt.answer {
				t.Errorf("question.replied %s (%v)", ev.Properties, err)
			}
		})
	}
}

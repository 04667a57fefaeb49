package cline

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
)

// envHookURL, when set, makes the test binary act as `plandash hook cline` posting to that URL:
// the real Cline runs it from the hook files Install wrote.
const envHookURL = "PLANDASH_TEST_CLINE_HOOK_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(envHookURL); url != "" {
		err := RunHook(context.Background(), os.Stdin, os.Stdout, httpPoster{URL: url}, HookOptions{Host: "agent-box", DataDir: DataDir(os.Getenv), Stderr: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// httpPoster is agenttest.Poster: POST the payload, return the body.
type httpPoster = agenttest.Poster

// rig is a real HTTP server around a Service on a real gate, plans service and waits on
// SQLite, and the real Cline with plandash's hook files installed (by Install, this test binary
// as the plandash command), its provider pointed at the scripted model server.
type rig struct {
	cli   *agenttest.Cline
	srv   *agenttest.ModelServer
	plans *plans.Service
	gate  *approval.Gate
	asked *waits.Asked
}

func newRig(t *testing.T) rig {
	t.Helper()
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	r := rig{plans: agenttest.Plans(t), gate: agenttest.Gate(t), asked: waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)}
	svc := NewService(r.plans, r.gate, Config{Host: "server", Asker: r.asked})
	hs := agenttest.HookServer(t, svc)
	r.srv = agenttest.NewModelServer(t)
	r.cli = agenttest.NewCline(t, r.srv)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(HooksDir("", func(k string) string { return map[string]string{"HOME": r.cli.Home}[k] }), InstallOptions{Command: exe}); err != nil {
		t.Fatal(err)
	}
	r.cli.Env = append(r.cli.Env, envHookURL+"="+hs.URL)
	return r
}

const planText = "# Parser plan\n\n1. Tokenize\n2. Parse"

// TestRealClineCapture: the REAL Cline, in plan mode and headless, reads a file and ends its
// turn with a plan; its hooks (plandash's hook files running this test binary) record the
// session, the tool call and the plan (the hook reads the turn's mode from Cline's own messages
// file), and list no wait for a next prompt: headless, Cline exits after the task.
func TestRealClineCapture(t *testing.T) {
	r := newRig(t)
	if err := os.WriteFile(r.cli.Dir+"/main.go", []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "read_files", Input: map[string]any{"files": []any{map[string]any{"path": r.cli.Dir + "/main.go"}}}}},
		agenttest.Turn{Text: planText})
	res := r.cli.Run(2*time.Minute, "plan the parser", "--plan", "--json")
	if res.Err != nil {
		t.Fatalf("cline: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, r.srv.Summary())
	}
	sessions, err := r.plans.Sessions(context.Background(), 10)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions = %+v, %v", sessions, err)
	}
	s := sessions[0]
	if !strings.HasPrefix(s.ID, SessionPrefix) || s.Cwd != r.cli.Dir {
		t.Errorf("session = %+v, want a cline: session in %s", s, r.cli.Dir)
	}
	p, err := r.plans.Plan(context.Background(), s.ID, PlanMode)
	if err != nil || !strings.Contains(p.Markdown, "2. Parse") {
		t.Errorf("plan = %+v, %v; want the plan-mode answer", p, err)
	}
	detail, err := r.plans.Session(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sawRead bool
	for _, c := range detail.ToolCalls {
		if strings.Contains(c.Title, "read_files") && c.Status == "completed" {
			sawRead = true
		}
	}
	if !sawRead {
		t.Errorf("no completed read_files call recorded: %+v", detail.ToolCalls)
	}
	// Headless, Cline exits after the task: nothing waits for a next prompt.
	if open, err := r.asked.Open(context.Background()); err != nil || len(open) != 0 {
		t.Errorf("open waits after a headless run = %+v, %v", open, err)
	}
}

package pi

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
)

// discover runs a Discoverer of dir on svc until check passes or a minute went by.
func discover(t *testing.T, svc *Service, dir string, check func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- svc.NewDiscoverer(dir, DiscoverOptions{StateDir: t.TempDir(), Rescan: 200 * time.Millisecond}).Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if check() {
			return
		}
	}
	t.Fatal("the discoverer did not show what was expected within a minute")
}

// toolCalled reports whether the session has a completed tool call whose title holds title.
func toolCalled(p *plans.Service, key, title string) bool {
	d, err := p.Session(context.Background(), key)
	if err != nil {
		return false
	}
	for _, c := range d.ToolCalls {
		if strings.Contains(c.Title, title) && c.Status == "completed" {
			return true
		}
	}
	return false
}

// TestRealPiSessionsWithoutExtension: a session the REAL Pi wrote, with nothing of plandash
// installed, shows from Pi's own session file: the session in its directory, the prompt, the
// tool call by title, the answer and the tokens used.
func TestRealPiSessionsWithoutExtension(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	srv := agenttest.NewModelServer(t)
	cli := agenttest.NewPi(t, srv)
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "bash", Input: map[string]any{"command": "echo from-pi"}}},
		agenttest.Turn{Text: "All done here."})
	if res := cli.Print(2*time.Minute, "say hi"); res.Err != nil {
		t.Fatalf("pi -p: %v\n%s%s", res.Err, res.Stdout, res.Stderr)
	}
	p := agenttest.Plans(t)
	svc := NewService(p, nil, Config{Host: "server"})
	var key string
	discover(t, svc, SessionsDir(func(k string) string { return map[string]string{"HOME": cli.Home}[k] }), func() bool {
		ss, err := p.Sessions(context.Background(), 10)
		if err != nil || len(ss) != 1 {
			return false
		}
		key = ss[0].ID
		// The answer is the file's last line: once it shows, the rest was read.
		d, err := p.Session(context.Background(), key)
		return err == nil && toolCalled(p, key, "bash") && slices.ContainsFunc(d.Activity, func(a plans.Activity) bool { return a.Text == "All done here." })
	})
	sess, err := p.Session(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	s := sess.Session
	if !strings.HasPrefix(key, SessionPrefix) || s.Cwd != cli.Dir || !slices.Contains(s.Via, plans.ViaTranscript) {
		t.Errorf("session = %+v; want a pi: session in %s read from its file", s, cli.Dir)
	}
	if s.Usage == nil || s.Usage.Model != agenttest.PiModel || s.Usage.OutputTokens == 0 {
		t.Errorf("usage = %+v; want the model's tokens", s.Usage)
	}
	var texts []string
	for _, a := range sess.Activity {
		texts = append(texts, a.Text)
	}
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "say hi") || !strings.Contains(all, "All done here.") {
		t.Errorf("activity = %q; want the prompt and the answer", texts)
	}
}

// TestRealPiSessionsOneSession: a session the extension reported and the discoverer then reads
// from Pi's file is one session, seen both ways; the file adds the tool calls.
func TestRealPiSessionsOneSession(t *testing.T) {
	r := newRig(t)
	r.srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todo_write", Input: todoArgs}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "bash", Input: map[string]any{"command": "echo from-pi"}}},
		agenttest.Turn{Text: "All done here."})
	if res := r.cli.Print(2*time.Minute, "say hi"); res.Err != nil {
		t.Fatalf("pi -p: %v\n%s%s", res.Err, res.Stdout, res.Stderr)
	}
	ss, err := r.plans.Sessions(context.Background(), 10)
	if err != nil || len(ss) != 1 {
		t.Fatalf("sessions after the run = %+v, %v", ss, err)
	}
	key := ss[0].ID
	discover(t, r.svc, SessionsDir(func(k string) string { return map[string]string{"HOME": r.cli.Home}[k] }), func() bool {
		return toolCalled(r.plans, key, "bash")
	})
	ss, err = r.plans.Sessions(context.Background(), 10)
	if err != nil || len(ss) != 1 || !slices.Contains(ss[0].Via, plans.ViaHooks) || !slices.Contains(ss[0].Via, plans.ViaTranscript) {
		t.Fatalf("sessions = %+v, %v; want one, seen by the extension and in its file", ss, err)
	}
	todos, err := r.plans.Plan(context.Background(), key, PlanTodos)
	if err != nil || len(todos.Entries) != 2 {
		t.Errorf("todos = %+v, %v", todos, err)
	}
}

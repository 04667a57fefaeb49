package copilot

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
)

// todoScript is a model that writes a todo list, changes it and ends the turn.
func todoScript(srv *agenttest.ModelServer) {
	srv.Script(
		agenttest.Turn{Text: "Let me plan.", ToolUse: &agenttest.ToolUse{Name: "sql", Input: map[string]any{"description": "Add todos",
			"query": "INSERT INTO todos (id, title) VALUES ('read', 'Reading the parser'), ('tok', 'Writing the tokenizer')"}}},
		agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "sql", Input: map[string]any{"description": "Progress",
			"query": "UPDATE todos SET status = 'done' WHERE id = 'read'"}}},
		agenttest.Turn{Text: "Agenttest turn over."},
	)
}

// runDiscoverer follows dir until cond holds of p's one session, or fails after a minute.
func runDiscoverer(t *testing.T, svc *Service, p *plans.Service, dir string, cond func(plans.SessionDetail) bool) plans.SessionDetail {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- svc.NewDiscoverer(dir, DiscoverOptions{StateDir: t.TempDir(), Rescan: 200 * time.Millisecond}).Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	var d plans.SessionDetail
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		list, err := p.Sessions(ctx, 10)
		if err != nil || len(list) == 0 {
			continue
		}
		if len(list) > 1 {
			t.Fatalf("%d sessions: %+v", len(list), list)
		}
		if d, err = p.Session(ctx, list[0].ID); err == nil && cond(d) {
			return d
		}
	}
	t.Fatalf("the discovered session never got there: %+v", d)
	return d
}

func todoEntries(d plans.SessionDetail) []string {
	var out []string
	for _, pl := range d.Plans {
		if pl.ID == PlanTodos {
			for _, e := range pl.Entries {
				out = append(out, e.Content+"="+e.Status)
			}
		}
	}
	return out
}

// TestRealCopilotDiscover: with nothing installed, the REAL Copilot CLI's session log and
// session database are found and read: the session, its prompt and answer, its todo list and
// its token usage show, marked as read from its transcript.
func TestRealCopilotDiscover(t *testing.T) {
	skipShort(t)
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "server"})
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCopilot(t, srv, nil)
	todoScript(srv)
	if res := c.Prompt(3*time.Minute, "plan the parser"); res.Err != nil {
		t.Fatalf("copilot -p: %v\n%s\n%s", res.Err, res.Stdout, res.Stderr)
	}
	want := []string{"Reading the parser=completed", "Writing the tokenizer=pending"}
	d := runDiscoverer(t, svc, p, filepath.Join(c.Home, ".copilot", "session-state"), func(d plans.SessionDetail) bool {
		return reflect.DeepEqual(todoEntries(d), want) && d.Session.Ended
	})
	if !slices.Contains(d.Session.Via, plans.ViaTranscript) || d.Session.Cwd != c.Dir || d.Session.Agent != AgentName {
		t.Errorf("session %+v", d.Session)
	}
	if d.Session.Usage.Model != agenttest.CopilotModel || d.Session.Usage.InputTokens != 30 {
		t.Errorf("usage %+v", d.Session.Usage)
	}
}

// TestRealCopilotHookedAndDiscovered: a session reported by hooks and found on disk is one
// session.
func TestRealCopilotHookedAndDiscovered(t *testing.T) {
	skipShort(t)
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "server"})
	hs := hookServer(t, svc)
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewCopilot(t, srv, nil)
	installHooks(t, c, hs.URL, false)
	todoScript(srv)
	if res := c.Prompt(3*time.Minute, "plan the parser"); res.Err != nil {
		t.Fatalf("copilot -p: %v\n%s\n%s", res.Err, res.Stdout, res.Stderr)
	}
	d := runDiscoverer(t, svc, p, filepath.Join(c.Home, ".copilot", "session-state"), func(d plans.SessionDetail) bool {
		return slices.Contains(d.Session.Via, plans.ViaTranscript) && d.Session.Usage.Model != ""
	})
	if !slices.Contains(d.Session.Via, plans.ViaHooks) || len(todoEntries(d)) != 2 {
		t.Errorf("session %+v, todos %v", d.Session, todoEntries(d))
	}
}

// TestDiscoverHostile: lines that are not events, huge lines and a symlinked log cost nothing
// and show nothing.
func TestDiscoverHostile(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "server"})
	dir := t.TempDir()
	s1 := filepath.Join(dir, "s1")
	_ = os.MkdirAll(s1, 0o700)
	log := `{"type":"session.start","data":{"sessionId":"s1","context":{"cwd":"/p"},"selectedModel":"m"},"timestamp":"2026-11-28T07:00:00Z"}
not json
{"type":"user.message","data":{"content":"` + strings.Repeat("x", MaxEventsLine+10) + `"}}
{"type":"tool.execution_complete","data":{"toolCallId":"unknown","success":true}}
{"type":"assistant.message","data":{"messageId":"m1","content":"hello"},"timestamp":"2026-11-28T07:00:01Z"}
`
	if err := os.WriteFile(filepath.Join(s1, "events.jsonl"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "events.jsonl")
	_ = os.WriteFile(outside, []byte(`{"type":"session.start","data":{"sessionId":"evil"}}`+"\n"), 0o600)
	_ = os.MkdirAll(filepath.Join(dir, "s2"), 0o700)
	_ = os.Symlink(outside, filepath.Join(dir, "s2", "events.jsonl"))
	d := runDiscoverer(t, svc, p, dir, func(d plans.SessionDetail) bool { return d.Session.ID == SessionKey("s1") })
	if d.Session.Cwd != "/p" {
		t.Errorf("session %+v", d.Session)
	}
}

func FuzzDecodeLogLine(f *testing.F) {
	f.Add([]byte(`{"type":"session.start","data":{"sessionId":"s","context":{"cwd":"/p"}}}`))
	f.Add([]byte(`{"type":"tool.execution_start","data":{"toolCallId":"c","toolName":"sql","arguments":{"query":"insert into todos"}}}`))
	f.Add([]byte(`{"type":"session.usage_record","data":{"usage":{"inputTokens":5}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeLogLine(b)
		if err == nil && len(l.Text) > maxPromptText+4 {
			t.Fatalf("text of %d bytes", len(l.Text))
		}
	})
}

package gemini

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/plans"
)

func todosOf(p *plans.Service, key string) string {
	d, err := p.Session(context.Background(), key)
	if err != nil {
		return ""
	}
	for _, pl := range d.Plans {
		if pl.ID == PlanTodos && !pl.Removed {
			var out []string
			for _, e := range pl.Entries {
				out = append(out, e.Content+"="+e.Status)
			}
			return strings.Join(out, ",")
		}
	}
	return ""
}

func runChats(t *testing.T, d *Discoverer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

func eventually(t *testing.T, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(20 * time.Millisecond) {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v: %s", timeout, why)
		}
	}
}

// TestChatDiscovered: a chat file the real Gemini CLI 0.61.0 wrote, under ~/.gemini/tmp with
// its project's .project_root, shows its session: the todos, the prompt, the answer once (Gemini
// CLI writes a message again as it grows), the usage counted once per message, the directory.
func TestChatDiscovered(t *testing.T) {
	tmp := t.TempDir()
	proj := filepath.Join(tmp, "project")
	if err := os.MkdirAll(filepath.Join(proj, "chats"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".project_root"), []byte("/home/dev/project"), 0o644); err != nil {
		t.Fatal(err)
	}
	chat, err := os.ReadFile(filepath.Join("testdata", "chat_write_todos.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "chats", "session-2026-11-28T04-47-cecccdc0.jsonl"), chat, 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	runChats(t, svc.NewDiscoverer(tmp, DiscoverOptions{Since: 100 * 365 * 24 * time.Hour}))
	key := SessionKey("cecccdc0-5a68-4aa9-8b66-97d3495311d1")
	eventually(t, 20*time.Second, func() (bool, string) {
		got := todosOf(p, key)
		return got == "Parse=in_progress,Fuzz=pending", "todos " + got
	})
	d, err := p.Session(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Session
	if s.Cwd != "/home/dev/project" || s.Name() != AgentTitle || !slices.Equal(s.Via, []string{plans.ViaTranscript}) {
		t.Errorf("session %+v", s)
	}
	if u := s.Usage; u == nil || u.Model != "gemini-2.5-pro" || u.InputTokens != 20 || u.OutputTokens != 20 || u.Used != 20 {
		t.Errorf("usage %+v", s.Usage)
	}
	acts, err := p.RecentActivity(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range acts {
		kinds = append(kinds, a.Kind+":"+a.Text)
	}
	if n := strings.Count(strings.Join(kinds, "|"), "Planning."); n != 1 {
		t.Errorf("the answer shows %d times: %q", n, kinds)
	}
}

// TestRealGeminiChatDiscovered: the real Gemini CLI, against the scripted model, writes its chat
// while a Discoverer follows HOME/.gemini/tmp; its AfterTool hook (this test binary) posts to
// the same Service. The session is one, seen both ways, with its todos and usage.
func TestRealGeminiChatDiscovered(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ans, err := svc.Handle(r.Context(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(ans)
	}))
	t.Cleanup(hs.Close)
	srv := agenttest.NewModelServer(t)
	cmd := envHookURL + "=" + agenttest.ShellQuote(hs.URL) + " " + agenttest.ShellQuote(os.Args[0])
	cli := agenttest.NewGemini(t, srv, map[string]any{"hooks": map[string]any{
		"AfterTool": []any{map[string]any{"matcher": "write_todos", "hooks": []any{map[string]any{"type": "command", "command": cmd}}}},
	}})
	runChats(t, svc.NewDiscoverer(filepath.Join(cli.Home, ".gemini", "tmp"), DiscoverOptions{StateDir: t.TempDir(), Rescan: time.Hour}))
	todos := []any{map[string]any{"description": "Parse", "status": "in_progress"}, map[string]any{"description": "Fuzz", "status": "pending"}}
	srv.Script(agenttest.Turn{Text: "Planning.", ToolUse: &agenttest.ToolUse{Name: "write_todos", Input: map[string]any{"todos": todos}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	res := cli.Prompt(3*time.Minute, "plan the parser", "--yolo", "-m", "gemini-2.5-pro")
	if res.Err != nil {
		t.Fatalf("gemini -p: %v\nstderr: %s\nrequests:\n%s", res.Err, res.Stderr, srv.Summary())
	}
	eventually(t, time.Minute, func() (bool, string) {
		list, _ := p.Sessions(context.Background(), 10)
		if len(list) != 1 {
			return false, "sessions " + strings.Repeat("x", len(list))
		}
		s := list[0]
		return slices.Contains(s.Via, plans.ViaTranscript) && slices.Contains(s.Via, plans.ViaHooks) && s.Usage != nil && s.Usage.OutputTokens == 20,
			"session via " + strings.Join(s.Via, ",")
	})
	list, _ := p.Sessions(context.Background(), 10)
	if got := todosOf(p, list[0].ID); got != "Parse=in_progress,Fuzz=pending" || list[0].Cwd != cli.Dir {
		t.Errorf("todos %q cwd %q", got, list[0].Cwd)
	}
}

// FuzzChatLine feeds DecodeChatLine arbitrary lines (seeded with the real chat's): it never
// panics, and what it keeps is bounded (arguments only for plan tools, texts cut).
func FuzzChatLine(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "chat_write_todos.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f.Add(bytes.Clone(sc.Bytes()))
	}
	for _, s := range []string{`{}`, `{"$set":{}}`, `{"type":"gemini","tokens":{"input":-1}}`, `{"type":"user","content":7}`,
		`{"type":"gemini","toolCalls":[{"id":"x","name":"read_file","args":{"absolute_path":"/etc/passwd"},"status":"success"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeChatLine(b, 1)
		if err != nil {
			return
		}
		if len(l.Prompt) > maxPromptText+4 || len(l.Text) > maxPromptText+4 || len(l.SessionID) > 255 || len(l.MessageID) > 255 {
			t.Fatalf("unbounded: %d %d", len(l.Prompt), len(l.Text))
		}
		for _, c := range l.Tools {
			if len(c.Args) > 0 && c.Name != ToolWriteTodos && c.Name != ToolExitPlanMode {
				t.Fatalf("kept the arguments of %q", c.Name)
			}
		}
		if tk := l.Tokens; tk != nil && (tk.Input < 0 || tk.Output < 0 || tk.Total < 0) {
			t.Fatalf("negative tokens %+v", tk)
		}
	})
}

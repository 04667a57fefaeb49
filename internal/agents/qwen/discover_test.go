package qwen

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// discover runs a Discoverer of projects for a moment.
func discover(t *testing.T, svc *Service, projects string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := svc.NewDiscoverer(projects, DiscoverOptions{StateDir: t.TempDir()}).Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// copyChat puts the real CLI's captured chat where Qwen Code keeps chats, under projects.
func copyChat(t *testing.T, projects string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "captured", "chat.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(projects, "-tmp-project", "chats")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "session.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiscoverCapturedChat: the chat the real CLI wrote shows its todo list, prompt and answer,
// marked as read from its transcript, with nothing installed.
func TestDiscoverCapturedChat(t *testing.T) {
	projects := t.TempDir()
	copyChat(t, projects)
	p := newPlans(t)
	discover(t, NewService(p, nil, Config{Host: "devbox"}), projects)
	checkTodos(t, p, "devbox")
	list, _ := p.Sessions(context.Background(), 10)
	d, err := p.Session(context.Background(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Session.Via, plans.ViaTranscript) {
		t.Errorf("via %v", d.Session.Via)
	}
	var texts []string
	for _, a := range d.Activity {
		texts = append(texts, a.Kind+":"+a.Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "prompt:plan the parser") || !strings.Contains(all, "Agenttest turn over.") {
		t.Errorf("activity %v", texts)
	}
}

// TestDiscoverAndHooksAreOneSession: a session seen by hooks and in its chat is one session,
// whose prompts are not shown twice.
func TestDiscoverAndHooksAreOneSession(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	for _, b := range captured(t, "todos") {
		if _, err := svc.Handle(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	// The hooks' session id, in the chat of the same run.
	hookSID := sessionOf(t, captured(t, "todos")[0])
	projects := t.TempDir()
	copyChat(t, projects)
	chat := filepath.Join(projects, "-tmp-project", "chats", "session.jsonl")
	b, _ := os.ReadFile(chat)
	first, err := DecodeChatLine([]byte(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || first.SessionID == "" {
		t.Fatalf("chat's first line: %+v %v", first, err)
	}
	chatSID := first.SessionID
	if err := os.WriteFile(chat, []byte(strings.ReplaceAll(string(b), chatSID, hookSID)), 0o644); err != nil {
		t.Fatal(err)
	}
	discover(t, svc, projects)
	list, _ := p.Sessions(context.Background(), 10)
	if len(list) != 1 {
		t.Fatalf("sessions %+v", list)
	}
	d, _ := p.Session(context.Background(), list[0].ID)
	prompts := 0
	for _, a := range d.Activity {
		if a.Kind == "prompt" {
			prompts++
		}
	}
	if prompts != 1 || !slices.Contains(d.Session.Via, plans.ViaHooks) || !slices.Contains(d.Session.Via, plans.ViaTranscript) {
		t.Errorf("prompts %d, via %v", prompts, d.Session.Via)
	}
}

// FuzzDecodeChatLine: any line decodes or fails cleanly, and keeps only the plan tools' calls.
func FuzzDecodeChatLine(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "captured", "chat.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		f.Add([]byte(line))
	}
	f.Add([]byte(`{"type":"assistant","message":{"parts":[{"functionCall":{"name":"run_shell_command","args":{}}},{"text":"x"}]}}`))
	f.Add([]byte(`{"type":"user","message":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeChatLine(b)
		if err != nil {
			return
		}
		for _, c := range l.Calls {
			if c.Name != ToolTodoWrite && c.Name != ToolExitPlanMode {
				t.Fatalf("kept a call of %q", c.Name)
			}
		}
		if len(l.Prompt)+len(l.Text) > len(b) {
			t.Fatalf("more text than the line: %d > %d", len(l.Prompt)+len(l.Text), len(b))
		}
	})
}

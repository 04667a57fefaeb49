package claude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// feed reads a transcript file line by line into a parser and flushes, as the follower does.
func feed(t *testing.T, p *transcriptParser, data []byte) {
	t.Helper()
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if err := p.Line([]byte(line), i+1); err != nil {
			t.Logf("skipped: %v", err)
		}
	}
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func planSummary(t *testing.T, svc *plans.Service, key, planID string) string {
	t.Helper()
	d, err := svc.Session(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Plans {
		if p.ID == planID && !p.Removed {
			var out []string
			for _, e := range p.Entries {
				out = append(out, e.Content+"="+e.Status)
			}
			return strings.Join(out, ",")
		}
	}
	return ""
}

// TestTranscriptTasks: a transcript the real Claude Code 2.1.328 wrote (TaskCreate, TaskUpdate,
// Bash) shows the session with its tasks plan, its prompt and tool call, and its usage.
func TestTranscriptTasks(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	data, err := os.ReadFile(filepath.Join("testdata", "transcript_tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tp := svc.newTranscriptParser("/home/dev/.claude/projects/-home-dev-parser/86b14d53-28da-4134-a622-10e985944eb4.jsonl", "", "")
	feed(t, tp, data)
	key := SessionKey("86b14d53-28da-4134-a622-10e985944eb4")
	if got := planSummary(t, p, key, PlanTasks); got != "Writing the parser=in_progress" {
		t.Errorf("tasks = %q", got)
	}
	d, err := p.Session(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Session
	if s.Agent != AgentName || s.Cwd != "/home/dev/parser" || !slices.Equal(s.Via, []string{plans.ViaTranscript}) {
		t.Errorf("session = %+v", s)
	}
	// Four model responses of 10 in and 10 out each; the context is the last one's.
	if u := s.Usage; u == nil || u.Model != "claude-sonnet-4-5" || u.InputTokens != 40 || u.OutputTokens != 40 || u.Used != 20 || u.Size != 0 {
		t.Errorf("usage = %+v", u)
	}
	calls, err := p.ToolCalls(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Title != "Bash: Say hi" || calls[0].Status != "completed" || len(calls[0].RawOutput) != 0 {
		t.Errorf("tool calls = %+v", calls)
	}
}

// TestTranscriptTodosAndQuestion: TodoWrite's list shows as the todos plan, and a question
// shows by its text; the tool's refusal fails the call.
func TestTranscriptTodosAndQuestion(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	data, err := os.ReadFile(filepath.Join("testdata", "transcript_todos.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	feed(t, svc.newTranscriptParser("/x/df09f915-7397-4a8d-a9ed-748da496fd43.jsonl", "", ""), data)
	key := SessionKey("df09f915-7397-4a8d-a9ed-748da496fd43")
	if got := planSummary(t, p, key, PlanTodos); got != "Writing the parser=in_progress" {
		t.Errorf("todos = %q", got)
	}
	calls, err := p.ToolCalls(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Title != "Question: Which parser?" || calls[0].Status != "failed" {
		t.Errorf("tool calls = %+v", calls)
	}
}

// TestTranscriptAndHooksOneSession: a session Claude Code's hooks report and whose transcript
// plandash reads is one session, saying it came both ways; the transcript adds its usage and
// plans but not a second copy of the prompt.
func TestTranscriptAndHooksOneSession(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	sid := "86b14d53-28da-4134-a622-10e985944eb4"
	for _, body := range []string{
		`{"session_id":"` + sid + `","hook_event_name":"SessionStart","cwd":"/home/dev/parser","source":"startup"}`,
		`{"session_id":"` + sid + `","hook_event_name":"UserPromptSubmit","prompt":"plan the parser"}`,
	} {
		if _, err := svc.Handle(context.Background(), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "transcript_tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	feed(t, svc.newTranscriptParser("/p/"+sid+".jsonl", "", ""), data)
	list, err := p.Sessions(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("sessions = %d, want 1: %+v", len(list), list)
	}
	s := list[0]
	if s.ID != SessionKey(sid) || !slices.Equal(s.Via, []string{plans.ViaHooks, plans.ViaTranscript}) || s.Usage == nil {
		t.Errorf("session = %+v", s)
	}
	if got := planSummary(t, p, s.ID, PlanTasks); got != "Writing the parser=in_progress" {
		t.Errorf("tasks = %q", got)
	}
	acts, err := p.RecentActivity(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	prompts := 0
	for _, a := range acts {
		if a.Kind == "prompt" {
			prompts++
		}
	}
	if prompts != 1 {
		t.Errorf("prompts = %d, want the hook's one", prompts)
	}
}

// TestTranscriptKeepsItsTime: a transcript Claude Code wrote days ago, read now, shows a session
// last seen when its last line was written, not an active one.
func TestTranscriptKeepsItsTime(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	old := time.Now().Add(-6 * 24 * time.Hour).UTC().Truncate(time.Millisecond)
	line := `{"type":"user","sessionId":"old","timestamp":"` + old.Format(time.RFC3339Nano) + `","message":{"content":"an old prompt"}}`
	feed(t, svc.newTranscriptParser("/p/old.jsonl", "", ""), []byte(line))
	s, err := p.SessionOnly(context.Background(), SessionKey("old"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.LastSeen.Equal(old) || s.Active(time.Now(), time.Hour) {
		t.Errorf("last seen %v, want %v (not active)", s.LastSeen, old)
	}
}

// TestTranscriptPlanMode: a plan-mode session the real Claude Code 2.1.328 wrote (interactive,
// under tmux; the plan approved) shows its plan: proposed from the ExitPlanMode call, approved
// from its result, the markdown as written.
func TestTranscriptPlanMode(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	data, err := os.ReadFile(filepath.Join("testdata", "transcript_plan.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := 0
	for i, l := range lines {
		if cut == 0 && strings.Contains(l, `"name":"ExitPlanMode"`) && strings.Contains(l, `"type":"assistant"`) {
			cut = i + 1
		}
	}
	key := SessionKey("9b13563f-268a-4316-b775-6c93f5676839")
	tp := svc.newTranscriptParser("/p/9b13563f-268a-4316-b775-6c93f5676839.jsonl", "", "")
	state := func() (string, string) {
		d, err := p.Session(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		for _, pl := range d.Plans {
			if pl.ID == PlanMode {
				return pl.Markdown, string(pl.Meta)
			}
		}
		return "", ""
	}
	feed(t, tp, []byte(strings.Join(lines[:cut], "")))
	if md, meta := state(); md != "# Parser plan\n\n1. Tokenize\n2. Parse\n" || !strings.Contains(meta, `"state":"proposed"`) {
		t.Fatalf("before the answer: %q %s", md, meta)
	}
	rest := tp.svc.newTranscriptParser(tp.path, tp.st.sid, tp.st.cwd)
	rest.st = tp.st
	feedFrom(t, rest, strings.Join(lines[cut:], ""), cut)
	if md, meta := state(); md != "# Parser plan\n\n1. Tokenize\n2. Parse\n" || !strings.Contains(meta, `"state":"approved"`) {
		t.Errorf("after the answer: %q %s", md, meta)
	}
}

// feedFrom is feed for lines that continue a file from line start+1.
func feedFrom(t *testing.T, p *transcriptParser, data string, start int) {
	t.Helper()
	for i, line := range strings.Split(strings.TrimRight(data, "\n"), "\n") {
		if err := p.Line([]byte(line), start+i+1); err != nil {
			t.Logf("skipped: %v", err)
		}
	}
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestTranscriptPendingBounded: a transcript of plan-tool calls that are never answered holds
// at most maxPendingBytes of their inputs, and a todo list too large to hold shows at once.
func TestTranscriptPendingBounded(t *testing.T) {
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	tp := svc.newTranscriptParser("/p/big.jsonl", "", "")
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"big","message":{"content":[{"type":"tool_use","id":"t%d","name":"TaskCreate","input":{"subject":"s","description":%q}}]}}`+"\n", i, strings.Repeat("d", 20<<10))
	}
	fmt.Fprintf(&b, `{"type":"assistant","sessionId":"big","message":{"content":[{"type":"tool_use","id":"todo","name":"TodoWrite","input":{"todos":[{"content":"big list","status":"pending","activeForm":%q}]}}]}}`+"\n", strings.Repeat("a", 300<<10))
	feed(t, tp, []byte(b.String()))
	if tp.st.pendingN > maxPendingBytes || len(tp.st.pending) > maxPendingTools {
		t.Errorf("pending %d calls, %d bytes", len(tp.st.pending), tp.st.pendingN)
	}
	if got := planSummaryQuiet(p, SessionKey("big"), PlanTodos); got != "big list=pending" {
		t.Errorf("todos %q", got)
	}
}

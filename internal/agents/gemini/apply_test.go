package gemini

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/plans"
)

// TestApplyCapturedTodos sends the real CLI's todos session through the Service into a real
// plans.Service on SQLite: the list shows with blocked as pending (its own status kept).
func TestApplyCapturedTodos(t *testing.T) {
	ctx := context.Background()
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	var sid string
	for _, b := range captured(t, "todos") {
		ev, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		sid = ev.SessionID
		if ans, err := svc.Handle(ctx, b); err != nil || len(ans) != 0 {
			t.Fatalf("%s: answer %q, err %v", ev.HookEventName, ans, err)
		}
	}
	d, err := p.Session(ctx, SessionKey(sid))
	if err != nil {
		t.Fatal(err)
	}
	if d.Session.Name() != AgentTitle || d.Session.Agent != AgentName || !strings.HasSuffix(d.Session.Cwd, "/project") || !d.Session.Ended {
		t.Errorf("session: %+v", d.Session)
	}
	if len(d.Plans) != 1 || d.Plans[0].ID != PlanTodos || d.Plans[0].Kind != plans.KindItems {
		t.Fatalf("plans: %+v", d.Plans)
	}
	var got, own []string
	for _, e := range d.Plans[0].Entries {
		got = append(got, e.Content+"="+e.Status)
		var m struct {
			Gemini struct {
				Status string `json:"status"`
			} `json:"gemini"`
		}
		if err := json.Unmarshal(e.Meta, &m); err != nil {
			t.Fatalf("meta %s: %v", e.Meta, err)
		}
		own = append(own, m.Gemini.Status)
	}
	want := []string{"Read the parser=completed", "Write the tokenizer=in_progress", "Fuzz it=pending", "Wait for the grammar=pending", "Old idea=cancelled"}
	if !reflect.DeepEqual(got, want) || own[3] != "blocked" {
		t.Errorf("entries %v, own statuses %v", got, own)
	}
	kinds := map[string]string{}
	for _, a := range d.Activity {
		kinds[a.Kind] += a.Text + "|"
	}
	for kind, text := range map[string]string{"prompt": "plan the parser", "agent_message_chunk": "Agenttest turn over."} {
		if !strings.Contains(kinds[kind], text) {
			t.Errorf("activity %s = %q (all %v)", kind, kinds[kind], kinds)
		}
	}
}

// TestApplyCapturedPlan: the real CLI's plan-mode session, with its plan file where Gemini
// keeps it, shows the plan as markdown, approved after AfterTool.
func TestApplyCapturedPlan(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox", PlanDirs: files.PlanDirs{filepath.Join(home, ".gemini", "tmp")}})
	var sid string
	for i, b := range captured(t, "plan") {
		b = rehome(t, b, home)
		ev, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		sid = ev.SessionID
		if i == 0 {
			writePlan(t, ev, "# Parser plan\n\n1. Tokenize\n2. Parse\n")
		}
		if _, err := svc.Handle(ctx, b); err != nil {
			t.Fatalf("%s: %v", ev.HookEventName, err)
		}
	}
	d, err := p.Session(ctx, SessionKey(sid))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Plans) != 1 || d.Plans[0].ID != PlanMode || d.Plans[0].Kind != plans.KindMarkdown || !strings.HasPrefix(d.Plans[0].Markdown, "# Parser plan") {
		t.Fatalf("plans: %+v", d.Plans)
	}
	if meta := string(d.Plans[0].Meta); !strings.Contains(meta, `"approved"`) || !strings.Contains(meta, "parser.md") {
		t.Errorf("meta %s", meta)
	}
}

// writePlan writes the plan file where Gemini CLI keeps the plans of ev's session.
func writePlan(t testing.TB, ev Event, md string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(filepath.Dir(ev.TranscriptPath)), ev.SessionID, "plans")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "parser.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHandleRefusesGarbage(t *testing.T) {
	svc := NewService(newPlans(t), nil, Config{Host: "h"})
	for _, body := range []string{`{"a":`, `[]`, `null`, `{"hook_event_name":"AfterAgent"}`, "{\"x\":\"\xff\"}"} {
		if _, err := svc.Handle(context.Background(), []byte(body)); err == nil || errs.KindOf(err) != errs.Invalid {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestResolvePlanPath(t *testing.T) {
	tests := []struct {
		name, file, dir, cwd, want string
	}{
		{"bare name", "p.md", "/h/plans", "/w", "/h/plans/p.md"},
		{"absolute inside", "/h/plans/x/p.md", "/h/plans", "/w", "/h/plans/x/p.md"},
		{"relative to the project", "plans/p.md", "/w/plans", "/w", "/w/plans/p.md"},
		{"escape", "../../etc/passwd", "/h/plans", "/w", ""},
		{"absolute outside", "/etc/passwd", "/h/plans", "/w", "/h/plans/etc/passwd"},
		{"no plans dir", "p.md", "", "/w", ""},
		{"relative plans dir", "p.md", "plans", "/w", ""},
		{"empty", " ", "/h/plans", "/w", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResolvePlanPath(tt.file, tt.dir, tt.cwd); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

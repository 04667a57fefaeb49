package kilo

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/agents/opencode"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
)

// hookServer serves svc at /api/v1/hooks/kilo, as plandash does, and returns its base URL.
func hookServer(t *testing.T, svc *opencode.HookService) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/hooks/kilo", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ans, err := svc.Handle(r.Context(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(ans)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestRealKiloPlan: the REAL Kilo CLI (`kilo serve`) with plandash's plugin installed in its
// user plugins directory. In the plan agent the model writes its plan file and calls
// plan_exit; Kilo then asks "Ready to implement?". The plugin posts every event to a
// HookService on a real gate and SQLite store: the plan shows, the question is held at the
// gate, and the decision reaches Kilo and the model. Approve: Kilo goes on
// with "Implement the plan above." Reject: the person's reason is the plan agent's next
// message.
func TestRealKiloPlan(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	for _, tt := range []struct {
		action approval.Action
		want   string
	}{
		{approval.Approve, "Implement the plan above."},
		{approval.Reject, "Split step 2 first"},
	} {
		t.Run(string(tt.action), func(t *testing.T) {
			g := agenttest.Gate(t)
			p := agenttest.Plans(t)
			svc := NewHookService(p, g, opencode.HookConfig{Host: "server"})
			base := hookServer(t, svc)

			srv := agenttest.NewModelServer(t)
			k := agenttest.NewKilo(t, srv, nil)
			if _, err := InstallPlugin(PluginDir("", func(key string) string {
				return map[string]string{"HOME": k.Home, "XDG_CONFIG_HOME": filepath.Join(k.Home, ".config")}[key]
			}), opencode.PluginOptions{Server: base}); err != nil {
				t.Fatal(err)
			}
			gitInit(t, k.Dir)
			planFile := filepath.Join(k.Dir, ".kilo", "plans", "parser.md")
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "write", Input: map[string]any{"filePath": planFile,
				"content": "# Parser plan\n\n1. Tokenize\n2. Parse\n"}}},
				agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "plan_exit", Input: map[string]any{"path": ".kilo/plans/parser.md"}}},
				agenttest.Turn{Text: "The plan is ready."},
				agenttest.Turn{Text: "Agenttest turn over."})
			s := k.Serve()
			session := s.Prompt("plan", "plan the parser")

			var req approval.Request
			for end := time.Now().Add(time.Minute); req.ID == "" && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if rs, _ := g.Pending(context.Background()); len(rs) > 0 {
					req = rs[0]
				}
			}
			if req.ID == "" {
				var qs any
				s.Do("GET", "/question", nil, &qs)
				t.Logf("Kilo's pending questions: %+v", qs)
				t.Fatalf("no request reached the gate; events: %d\nrequests:\n%s", len(s.Events()), srv.Summary())
			}
			if req.SessionID != sessionKey(session) || req.Agent != AgentTitle || !strings.Contains(req.Plan.Markdown, "1. Tokenize") {
				t.Errorf("request %+v", req)
			}
			d, err := p.Session(context.Background(), sessionKey(session))
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]plans.Plan{}
			for _, pl := range d.Plans {
				byID[pl.ID] = pl
			}
			if _, ok := byID[opencode.PlanMode]; !ok || d.Session.Agent != AgentName {
				t.Errorf("session %+v, plans %+v", d.Session, d.Plans)
			}
			if _, err := g.Decide(context.Background(), req.ID, approval.DecisionInput{Action: tt.action, By: "ann", Comment: "Split step 2 first"}); err != nil {
				t.Fatal(err)
			}
			ev := s.WaitEvent(2*time.Minute, opencode.EventQuestionReplied, nil)
			var rep struct {
				Answers [][]string `json:"answers"`
			}
			_ = json.Unmarshal(ev.Properties, &rep)
			t.Logf("Kilo heard %v", rep.Answers)
			r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool {
				return !r.Side && strings.Contains(string(r.Body), tt.want)
			})
			if !strings.Contains(string(r.Body), tt.want) {
				t.Errorf("the model never heard %q", tt.want)
			}
		})
	}
}

// gitInit makes dir a git repository: Kilo allows the plan agent to write only its plans
// directories, relative to the project's worktree, which outside git is "/".
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

// TestRealKiloTodos: the REAL Kilo CLI (`kilo run`, its code agent) writes a todo list; the
// plugin posts todo.updated and the list shows as the session's plan.
func TestRealKiloTodos(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	p := agenttest.Plans(t)
	base := hookServer(t, NewHookService(p, nil, opencode.HookConfig{Host: "server"}))
	srv := agenttest.NewModelServer(t)
	k := agenttest.NewKilo(t, srv, nil)
	if _, err := InstallPlugin(filepath.Join(k.Dir, ".kilo", "plugins"), opencode.PluginOptions{Server: base}); err != nil {
		t.Fatal(err)
	}
	todos := []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"},
		map[string]any{"content": "Fuzz", "status": "pending", "priority": "low"}}
	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}},
		agenttest.Turn{Text: "Agenttest turn over."})
	res := k.Run(3*time.Minute, "plan the parser")
	if res.Err != nil {
		t.Fatalf("kilo run: %v\nstderr: %s", res.Err, res.Stderr)
	}
	var list []plans.Session
	for end := time.Now().Add(30 * time.Second); len(list) == 0 && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		list, _ = p.Sessions(context.Background(), 10)
	}
	if len(list) != 1 || !strings.HasPrefix(list[0].ID, SessionPrefix) {
		t.Fatalf("sessions %+v\nstdout: %.2000s", list, res.Stdout)
	}
	d, err := p.Session(context.Background(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Plans) != 1 || len(d.Plans[0].Entries) != 2 || d.Plans[0].Entries[0].Content != "Parse" || d.Plans[0].Entries[1].Priority != "low" ||
		d.Session.Agent != AgentName || d.Session.Cwd != k.Dir {
		t.Errorf("session %+v plans %+v", d.Session, d.Plans)
	}

	// The same session, read from the database the real Kilo wrote, with no plugin.
	disc := agenttest.Plans(t)
	st := NewStorage(StoragePath(func(key string) string {
		return map[string]string{"HOME": k.Home, "XDG_DATA_HOME": filepath.Join(k.Home, ".local", "share")}[key]
	}), disc, "server", 0, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = st.Run(ctx)
	found, err := disc.Session(context.Background(), list[0].ID)
	if err != nil || len(found.Plans) != 1 || len(found.Plans[0].Entries) != 2 || found.Session.Agent != AgentName {
		t.Errorf("from kilo.db: %+v (%v)", found, err)
	}
}

package kilo

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
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
// user plugins directory. In the plan agent the model writes a todo list, writes its plan
// file and calls plan_exit; Kilo then asks "Ready to implement?". The plugin posts every event
// to a HookService on a real gate and SQLite store: the todos and the plan show, the question
// is held at the gate, and the decision reaches Kilo and the model. Approve: Kilo goes on
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
			todos := []any{map[string]any{"content": "Parse", "status": "in_progress", "priority": "high"},
				map[string]any{"content": "Fuzz", "status": "pending", "priority": "low"}}
			planFile := filepath.Join(k.Dir, ".kilo", "plans", "parser.md")
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "todowrite", Input: map[string]any{"todos": todos}}},
				agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "write", Input: map[string]any{"filePath": planFile,
					"content": "# Parser plan\n\n1. Tokenize\n2. Parse\n"}}},
				agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "plan_exit", Input: map[string]any{"path": ".kilo/plans/parser.md"}}},
				agenttest.Turn{Text: "The plan is ready."},
				agenttest.Turn{Text: "Agenttest turn over."})
			s := k.Serve()
			session := s.Prompt("plan", "plan the parser")

			var req approval.Request
			for end := time.Now().Add(3 * time.Minute); req.ID == "" && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if rs, _ := g.Pending(context.Background()); len(rs) > 0 {
					req = rs[0]
				}
			}
			if req.ID == "" {
				t.Fatalf("no request reached the gate; events: %d\nrequests:\n%s", len(s.Events()), srv.Summary())
			}
			if req.SessionID != SessionKey(session) || req.Agent != AgentTitle || !strings.Contains(req.Plan.Markdown, "1. Tokenize") {
				t.Errorf("request %+v", req)
			}
			d, err := p.Session(context.Background(), SessionKey(session))
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]plans.Plan{}
			for _, pl := range d.Plans {
				byID[pl.ID] = pl
			}
			if es := byID[opencode.PlanTodos].Entries; len(es) != 2 || es[0].Content != "Parse" || es[1].Priority != "low" {
				t.Errorf("todos %+v", es)
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

package kilo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/agents/opencode"
	"github.com/plandash/plandash/internal/approval"
)

// TestPlanQuestionHeld: Kilo's "Ready to implement?" is held at the gate as Kilo's plan, and
// the decision becomes the answer the plugin sends Kilo: "Continue here" to approve, the
// person's reason (or "Keep refining") to reject.
func TestPlanQuestionHeld(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "plan_question.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   approval.DecisionInput
		want string
	}{
		{approval.DecisionInput{Action: approval.Approve, By: "ann"}, AnswerContinue},
		{approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "Split step 2 first"}, "Split step 2 first"},
	} {
		g := agenttest.Gate(t)
		created := make(chan approval.Request, 2)
		g.OnChange(func(c approval.Change) {
			if c.Request != nil && !c.Request.Decided() {
				created <- *c.Request
			}
		})
		svc := NewHookService(agenttest.Plans(t), g, opencode.HookConfig{Host: "server"})
		done := make(chan []byte, 1)
		go func() {
			ans, err := svc.Handle(context.Background(), body)
			if err != nil {
				t.Error(err)
			}
			done <- ans
		}()
		var req approval.Request
		select {
		case req = <-created:
		case <-time.After(10 * time.Second):
			t.Fatal("no request reached the gate")
		}
		if req.Agent != AgentTitle || req.SessionID != sessionKey("ses_ddeca9b12ffeH2vgTyCuLNZyE1") || req.Title != "Plan: Parser plan" ||
			!strings.Contains(req.Plan.Markdown, "1. Tokenize") || !strings.Contains(req.Context, "Continue here") {
			t.Errorf("request %+v", req)
		}
		if _, err := g.Decide(context.Background(), req.ID, tc.in); err != nil {
			t.Fatal(err)
		}
		var r struct {
			Reply struct {
				Path string
				Body struct{ Answers [][]string }
			}
		}
		if err := json.Unmarshal(<-done, &r); err != nil {
			t.Fatal(err)
		}
		answers := r.Reply.Body.Answers
		if r.Reply.Path != "/question/que_221358364001Iy8o90b0neRdFJ/reply" || len(answers) != 1 || answers[0][0] != tc.want {
			t.Errorf("%s: reply %+v, want %q", tc.in.Action, r.Reply, tc.want)
		}
	}
}

// TestPlanAnswer: a rejection without words keeps Kilo planning.
func TestPlanAnswer(t *testing.T) {
	if Flavor.PlanAnswer(false, "") != AnswerKeepRefining || Flavor.PlanAnswer(true, "x") != AnswerContinue {
		t.Error("PlanAnswer")
	}
}

// TestPluginForKilo: the plugin Kilo gets posts to Kilo's route and knows its hand-off
// question; it installs into Kilo's plugins directory.
func TestPluginForKilo(t *testing.T) {
	dir := PluginDir("", func(k string) string { return map[string]string{"HOME": "/home/ann"}[k] })
	if dir != "/home/ann/.config/kilo/plugins" {
		t.Errorf("PluginDir = %s", dir)
	}
	if PluginDir("/p", os.Getenv) != "/p/.kilo/plugins" {
		t.Error("project PluginDir")
	}
	d := t.TempDir()
	rep, err := InstallPlugin(d, opencode.PluginOptions{Server: "http://127.0.0.1:7420"})
	if err != nil || !rep.Changed {
		t.Fatalf("%+v %v", rep, err)
	}
	b, _ := os.ReadFile(rep.Path)
	if !strings.Contains(string(b), `"hook":"kilo"`) || !strings.Contains(string(b), `"planQuestion":"Ready to implement?"`) {
		t.Errorf("plugin config line: %s", strings.SplitN(string(b[strings.Index(string(b), "const CONFIG"):]), "\n", 2)[0])
	}
	if !strings.HasPrefix(string(b), "// plandash-kilo-plugin: written by `plandash install kilo`") {
		t.Errorf("plugin header: %.120s", b)
	}
	if rep, err := UninstallPlugin(d, ""); err != nil || !rep.Changed {
		t.Errorf("uninstall %+v %v", rep, err)
	}
}

// FuzzHandle feeds Kilo's hook service arbitrary bodies: it never panics, and what it answers
// without a gate is nothing.
func FuzzHandle(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "plan_question.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range []string{`{}`, `{"type":"todo.updated","properties":{"sessionID":"s","todos":[{"content":"a"}]}}`,
		`{"type":"question.asked","properties":{"id":"q","sessionID":"s","questions":[{"question":"Ready to implement?"}]}}`, `[`, `null`} {
		f.Add([]byte(s))
	}
	svc := NewHookService(agenttest.Plans(f), nil, opencode.HookConfig{Host: "h"})
	f.Fuzz(func(t *testing.T, body []byte) {
		ans, _ := svc.Handle(context.Background(), body)
		if len(ans) != 0 {
			t.Fatalf("answered %q without a gate", ans)
		}
	})
}

package copilot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
)

func TestPermissionAnswers(t *testing.T) {
	for _, ok := range []string{``, `{"behavior":"allow"}`, string(PermissionAnswer(false, "")), string(PermissionAnswer(false, "no"))} {
		if err := CheckPermissionAnswer([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{`{"behavior":"deny"}`, `{"behavior":"ask"}`, `x`} {
		if CheckPermissionAnswer([]byte(bad)) == nil {
			t.Errorf("%s passed", bad)
		}
	}
	_, perm := captured(t, "perm")
	for _, tt := range []struct {
		name        string
		noGate      bool
		plan        bool // a request to write the session's plan.md
		p           poster
		posted      bool
		out, stderr string
	}{
		{name: "allowed", p: poster{answer: []byte(`{"behavior":"allow"}`)}, posted: true, out: `{"behavior":"allow"}`},
		{name: "server down: the prompt asks", p: poster{err: errors.New("refused")}, posted: true, stderr: "prompt asks you"},
		{name: "foreign answer", p: poster{answer: []byte(`{"behavior":"ask"}`)}, posted: true, stderr: "neither an allow"},
		{name: "no gate: not posted", noGate: true},
		{name: "the session's own plan.md: not held", p: poster{answer: []byte(`{"behavior":"allow"}`)}, plan: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			p := tt.p
			in := perm[1]
			if tt.plan {
				ev, _ := Decode(in)
				in = []byte(strings.Replace(string(in), `"toolInput":{"command":"echo hi > out.txt"}`,
					`"toolInput":{"file_path":"/h/session-state/`+ev.SessionID+`/plan.md","diff":"+x"}`, 1))
			}
			if err := RunHook(context.Background(), bytes.NewReader(in), &out, &p, HookOptions{NoGate: tt.noGate, Stderr: &stderr, CopilotHome: "/h"}); err != nil {
				t.Fatal(err)
			}
			if (len(p.got) == 1) != tt.posted || (tt.posted && !p.wait[0]) {
				t.Errorf("posted %d, waiting %v", len(p.got), p.wait)
			}
			if out.String() != tt.out || !strings.Contains(stderr.String(), tt.stderr) || (tt.stderr == "" && stderr.Len() > 0) {
				t.Errorf("out %q, stderr %q", out.String(), stderr.String())
			}
		})
	}
}

// TestRealCopilotPermission: with install --gate, the REAL interactive Copilot CLI's shell
// command waits at plandash's gate (its permissionRequest hook) before its own prompt: a
// rejection refuses it with the reason reaching the model; an approval runs it, no prompt shown.
func TestRealCopilotPermission(t *testing.T) {
	skipShort(t)
	for _, action := range []approval.Action{approval.Reject, approval.Approve} {
		t.Run(string(action), func(t *testing.T) {
			g := newGate(t)
			created := make(chan approval.Request, 4)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			hs := hookServer(t, NewService(newPlans(t), g, Config{Host: "server"}))
			srv := agenttest.NewModelServer(t)
			c := agenttest.NewCopilot(t, srv, nil)
			installHooks(t, c, hs.URL, true)
			srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "bash", Input: map[string]any{
				"command": "echo hello-from-copilot > out.txt", "description": "Write a file"}}},
				agenttest.Turn{Text: "Agenttest turn over."})
			x := c.Interactive()
			defer x.Stop(10 * time.Second)
			x.Submit("write the file")
			var req approval.Request
			select {
			case req = <-created:
			case <-time.After(2 * time.Minute):
				t.Fatalf("no request reached the gate; screen:\n%s", x.Screen())
			}
			if !strings.Contains(req.Title, "echo hello-from-copilot") || req.Then != PromptDecides {
				t.Fatalf("request %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, approval.DecisionInput{Action: action, By: "ann", Comment: "Not in this repo"}); err != nil {
				t.Fatal(err)
			}
			r := srv.WaitRequest(2*time.Minute, func(r agenttest.Request) bool { return len(r.ToolResults()) > 0 })
			res := r.ToolResults()[0]
			_, statErr := os.Stat(filepath.Join(c.Dir, "out.txt"))
			if action == approval.Reject && (!strings.Contains(res.Content, "Not in this repo") || statErr == nil) {
				t.Errorf("rejected: result %+v, file written %v", res, statErr == nil)
			}
			if action == approval.Approve && statErr != nil {
				t.Errorf("approved: result %+v, file: %v; screen:\n%s", res, statErr, x.Screen())
			}
		})
	}
}

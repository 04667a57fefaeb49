package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/files"
)

// servicePoster posts straight into a real Service, as the HTTP endpoint will.
type servicePoster struct{ svc *Service }

func (p servicePoster) Post(ctx context.Context, body []byte, _ bool) ([]byte, error) {
	return p.svc.Handle(ctx, body)
}

// TestGateDecisions runs the captured exit_plan_mode BeforeTool through RunHook (which reads
// the plan from $GEMINI_PLANS_DIR) into a Service on a real gate, decides, and checks the
// bytes the hook prints for Gemini CLI.
func TestGateDecisions(t *testing.T) {
	tests := []struct {
		name       string
		in         approval.DecisionInput
		wantDeny   bool
		wantReason string
	}{
		{name: "approve", in: approval.DecisionInput{Action: approval.Approve, By: "ann"}},
		{name: "reject", in: approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "Split step 2"}, wantDeny: true, wantReason: "Split step 2"},
		{name: "request changes", in: approval.DecisionInput{Action: approval.RequestChanges, By: "ann",
			Feedback: []approval.Comment{{Target: approval.TargetLine, Line: 3, Comment: "Lex and parse apart"}}}, wantDeny: true, wantReason: "On line 3 (\"1. Tokenize\"):\n   Lex and parse apart"},
		{name: "modify", in: approval.DecisionInput{Action: approval.Modify, By: "ann", Comment: "tighter",
			Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Parser plan\n\n1. Lex\n"}}, wantDeny: true, wantReason: "1. Lex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			body := rehome(t, capturedEvent(t, "plan", "BeforeTool_exit_plan_mode"), home)
			ev, err := Decode(body)
			if err != nil {
				t.Fatal(err)
			}
			path := writePlan(t, ev, "# Parser plan\n\n1. Tokenize\n")
			g := newGate(t)
			created := make(chan approval.Request, 4)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			// No PlanDirs: the Service cannot read the file itself, so the plan must come from the hook.
			svc := NewService(newPlans(t), g, Config{Host: "server"})
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				done <- RunHook(context.Background(), bytes.NewReader(body), &out, servicePoster{svc},
					HookOptions{Host: "laptop", PlansDir: strings.TrimSuffix(path, "/parser.md")})
			}()
			var req approval.Request
			select {
			case req = <-created:
			case err := <-done:
				t.Fatalf("the hook returned before a request was made: %v %q", err, out.String())
			case <-time.After(10 * time.Second):
				t.Fatal("no request reached the gate")
			}
			if req.Agent != AgentTitle || req.SessionID != SessionKey(ev.SessionID) || req.Title != "Plan: Parser plan" ||
				!strings.Contains(req.Plan.Markdown, "1. Tokenize") || !strings.Contains(req.Context, "laptop") {
				t.Errorf("request %+v", req)
			}
			if _, err := g.Decide(context.Background(), req.ID, tt.in); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the hook did not return")
			}
			if !tt.wantDeny {
				if out.Len() != 0 {
					t.Errorf("approve printed %q, want nothing", out.String())
				}
				return
			}
			var a struct{ Decision, Reason string }
			if err := json.Unmarshal(out.Bytes(), &a); err != nil || a.Decision != "deny" || !strings.Contains(a.Reason, tt.wantReason) {
				t.Errorf("answer %q (%v)", out.String(), err)
			}
		})
	}
}

// TestGateExpiredDenies: with the policy installed there is no dialog behind the hook, so a
// plan nobody decided on is refused, not waved through.
func TestGateExpiredDenies(t *testing.T) {
	home := t.TempDir()
	body := rehome(t, capturedEvent(t, "plan", "BeforeTool_exit_plan_mode"), home)
	// The clock jumps a day once the request is made, so its deadline has passed.
	var later atomic.Bool
	base := time.Now()
	g, err := approval.New(context.Background(), openDB(t).Approvals(), approval.Config{Now: func() time.Time {
		if later.Load() {
			return base.Add(24 * time.Hour)
		}
		return base
	}})
	if err != nil {
		t.Fatal(err)
	}
	g.OnChange(func(approval.Change) { later.Store(true) })
	svc := NewService(newPlans(t), g, Config{Host: "h", PlanDirs: files.PlanDirs{filepath.Join(home, ".gemini", "tmp")}, Deadline: time.Hour})
	ans, err := svc.Handle(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckAnswer(ans); err != nil || !bytes.Contains(ans, []byte(`"deny"`)) {
		t.Errorf("answer %q: %v", ans, err)
	}
}

// TestRunHookNeverBreaksTheAgent: a server that fails or answers nonsense never fails the
// hook, and never lets the plan through by silence: the hook stops the turn (continue false),
// leaving the plan to the person, and says why on stderr. A capture event in the same trouble
// prints nothing.
func TestRunHookNeverBreaksTheAgent(t *testing.T) {
	body := capturedEvent(t, "plan", "BeforeTool_exit_plan_mode")
	for name, post := range map[string]funcPoster{
		"down":    func(context.Context) ([]byte, error) { return nil, context.DeadlineExceeded },
		"garbage": func(context.Context) ([]byte, error) { return []byte(`{"decision":"allow"}`), nil },
		"html":    func(context.Context) ([]byte, error) { return []byte(`<html>`), nil },
	} {
		var out, errOut bytes.Buffer
		if err := RunHook(context.Background(), bytes.NewReader(body), &out, post, HookOptions{Stderr: &errOut}); err != nil {
			t.Errorf("%s: err %v", name, err)
		}
		var v struct {
			Continue   *bool
			StopReason string
		}
		if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Continue == nil || *v.Continue || v.StopReason == "" {
			t.Errorf("%s: out %q, want continue false with a reason", name, out.String())
		}
		if !strings.Contains(errOut.String(), "left to you") {
			t.Errorf("%s: stderr %q does not say why", name, errOut.String())
		}
		out.Reset()
		capture := capturedEvent(t, "todos", "SessionStart")
		if err := RunHook(context.Background(), bytes.NewReader(capture), &out, post, HookOptions{}); err != nil || out.Len() != 0 {
			t.Errorf("%s, a capture: out %q, err %v", name, out.String(), err)
		}
	}
}

type funcPoster func(ctx context.Context) ([]byte, error)

func (f funcPoster) Post(ctx context.Context, _ []byte, _ bool) ([]byte, error) { return f(ctx) }

// TestGateHookStoppedIsNotARejection: a hook that stopped waiting (Gemini CLI's timeout, or
// Gemini CLI stopped) leaves the request "stopped waiting — outcome not known yet": nobody
// rejected the plan, and a timed-out hook lets Gemini CLI go on.
func TestGateHookStoppedIsNotARejection(t *testing.T) {
	home := t.TempDir()
	body := rehome(t, capturedEvent(t, "plan", "BeforeTool_exit_plan_mode"), home)
	g := newGate(t)
	created := make(chan approval.Request, 4)
	g.OnChange(func(c approval.Change) {
		if c.Request != nil && !c.Request.Decided() {
			created <- *c.Request
		}
	})
	svc := NewService(newPlans(t), g, Config{Host: "h", PlanDirs: files.PlanDirs{filepath.Join(home, ".gemini", "tmp")}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := svc.Handle(ctx, body)
		done <- err
	}()
	var req approval.Request
	select {
	case req = <-created:
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the gate")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Handle did not return")
	}
	got, err := g.Get(context.Background(), req.ID)
	if err != nil || got.Status != approval.Elsewhere || got.Decision != nil || got.Handover == nil || got.Handover.Note != HookStopped {
		t.Fatalf("after the hook stopped: %s %+v %+v %v; want %q, not a rejection", got.Status, got.Decision, got.Handover, err, HookStopped)
	}
}

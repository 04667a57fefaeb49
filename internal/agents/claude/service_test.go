package claude

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
)

// gateRig runs Service.Handle for a plan prompt in the background and lets the test act as
// the person (or the terminal) once the request is at the gate.
type gateRig struct {
	svc     *Service
	gate    *approval.Gate
	created chan approval.Request
}

type handled struct {
	answer []byte
	err    error
}

func newGateRig(t *testing.T, cfg Config) *gateRig {
	t.Helper()
	g := newGate(t)
	r := &gateRig{gate: g, created: make(chan approval.Request, 8)}
	g.OnChange(func(c approval.Change) {
		if c.Request != nil && !c.Request.Decided() {
			r.created <- *c.Request
		}
	})
	if cfg.Host == "" {
		cfg.Host = "devbox"
	}
	r.svc = NewService(newPlans(t), g, cfg)
	return r
}

// ask sends the plan prompt and returns the request it put at the gate and the channel the
// hook's answer arrives on.
func (r *gateRig) ask(t *testing.T, ctx context.Context) (approval.Request, <-chan handled) {
	t.Helper()
	body := fixture(t, "permission_exitplanmode.json")
	done := make(chan handled, 1)
	go func() {
		a, err := r.svc.Handle(ctx, body)
		done <- handled{a, err}
	}()
	select {
	case req := <-r.created:
		return req, done
	case h := <-done:
		t.Fatalf("Handle returned before a request was made: %q %v", h.answer, h.err)
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the gate")
	}
	return approval.Request{}, nil
}

func wait(t *testing.T, done <-chan handled) handled {
	t.Helper()
	select {
	case h := <-done:
		return h
	case <-time.After(30 * time.Second):
		t.Fatal("Handle did not return")
	}
	return handled{}
}

type hookOut struct {
	Out struct {
		Event    string `json:"hookEventName"`
		Decision struct {
			Behavior           string          `json:"behavior"`
			UpdatedInput       json.RawMessage `json:"updatedInput"`
			UpdatedPermissions []struct {
				Type, Mode, Destination string
			} `json:"updatedPermissions"`
			Message string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

func TestServiceGate(t *testing.T) {
	tests := []struct {
		name   string
		decide approval.DecisionInput
		check  func(t *testing.T, out hookOut)
	}{
		{"approve", approval.DecisionInput{Action: approval.Approve, By: "ana"}, func(t *testing.T, out hookOut) {
			d := out.Out.Decision
			if d.Behavior != "allow" || !strings.Contains(string(d.UpdatedInput), "Token bucket per API key") ||
				len(d.UpdatedPermissions) != 1 || d.UpdatedPermissions[0].Mode != ModeDefault || d.UpdatedPermissions[0].Destination != "session" {
				t.Errorf("%+v", d)
			}
		}},
		{"approve choosing auto-accept", approval.DecisionInput{Action: approval.Approve, By: "ana", Comment: "go\nmode: acceptEdits"}, func(t *testing.T, out hookOut) {
			if p := out.Out.Decision.UpdatedPermissions; len(p) != 1 || p[0].Mode != ModeAcceptEdits || p[0].Type != "setMode" {
				t.Errorf("%+v", out.Out.Decision)
			}
		}},
		{"reject with a reason", approval.DecisionInput{Action: approval.Reject, By: "ana", Comment: "Use the existing AuthService"}, func(t *testing.T, out hookOut) {
			if d := out.Out.Decision; d.Behavior != "deny" || d.Message != "Use the existing AuthService" || d.UpdatedInput != nil {
				t.Errorf("%+v", d)
			}
		}},
		{"request changes denies with the review", approval.DecisionInput{Action: approval.RequestChanges, By: "ana", Comment: "Close.",
			Feedback: []approval.Comment{{Target: approval.TargetLine, Line: 1, Comment: "Name the limit: 100 requests a minute"}}}, func(t *testing.T, out hookOut) {
			d := out.Out.Decision
			for _, want := range []string{"requested changes", "Overall: Close.", `On line 1 ("# Add rate limiting")`, "Name the limit: 100 requests a minute"} {
				if d.Behavior != "deny" || !strings.Contains(d.Message, want) || d.UpdatedInput != nil {
					t.Errorf("deny message lacks %q: %+v", want, d)
				}
			}
		}},
		{"modify approves the edited plan", approval.DecisionInput{Action: approval.Modify, By: "ana", Comment: "smaller",
			Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Add rate limiting\n\n1. Token bucket only"}}, func(t *testing.T, out hookOut) {
			d := out.Out.Decision
			var in struct{ Plan, PlanFilePath string }
			if err := json.Unmarshal(d.UpdatedInput, &in); err != nil {
				t.Fatalf("updatedInput %s: %v", d.UpdatedInput, err)
			}
			if d.Behavior != "allow" || d.Message != "" || in.Plan != "# Add rate limiting\n\n1. Token bucket only" ||
				!strings.HasSuffix(in.PlanFilePath, ".md") || len(d.UpdatedPermissions) != 1 || d.UpdatedPermissions[0].Mode != ModeDefault {
				t.Errorf("%+v (input %+v)", d, in)
			}
		}},
		{"modify choosing auto-accept", approval.DecisionInput{Action: approval.Modify, By: "ana", Comment: "mode: acceptEdits",
			Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Smaller"}}, func(t *testing.T, out hookOut) {
			if p := out.Out.Decision.UpdatedPermissions; out.Out.Decision.Behavior != "allow" || len(p) != 1 || p[0].Mode != ModeAcceptEdits {
				t.Errorf("%+v", out.Out.Decision)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newGateRig(t, Config{})
			req, done := rig.ask(t, context.Background())
			if req.Agent != AgentTitle || req.SessionID != SessionKey(fixtureSession) || req.Plan.Type != approval.TypeMarkdown ||
				!strings.HasPrefix(req.Plan.Markdown, "# Add rate limiting") || req.Title != "Plan: Add rate limiting" {
				t.Errorf("request: %+v", req)
			}
			if _, err := rig.gate.Decide(context.Background(), req.ID, tt.decide); err != nil {
				t.Fatal(err)
			}
			h := wait(t, done)
			if h.err != nil {
				t.Fatal(h.err)
			}
			if err := CheckAnswer(h.answer); err != nil {
				t.Fatalf("%v: %s", err, h.answer)
			}
			var out hookOut
			if err := json.Unmarshal(h.answer, &out); err != nil || out.Out.Event != EventPermissionRequest {
				t.Fatalf("%s: %v", h.answer, err)
			}
			tt.check(t, out)
		})
	}
}

// At the deadline the hook answers nothing and the terminal's dialog decides: the request is
// not recorded as the gate's default (rejected) but as the terminal's, outcome not known, until
// the session's next event shows it.
func TestServiceGateDeadlineLeavesItToTheTerminal(t *testing.T) {
	rig := newGateRig(t, Config{Deadline: time.Second})
	req, done := rig.ask(t, context.Background())
	h := wait(t, done)
	if h.err != nil || len(h.answer) != 0 {
		t.Fatalf("answer %q, err %v", h.answer, h.err)
	}
	got, err := rig.gate.Get(context.Background(), req.ID)
	if err != nil || got.Status != approval.Elsewhere || got.Decision != nil || got.Handover == nil ||
		got.Handover.Note != "the terminal decides — outcome not known yet" {
		t.Fatalf("%+v %+v %v; want handed to the terminal, no decision", got, got.Handover, err)
	}
	if _, err := rig.svc.Handle(context.Background(), fixture(t, "stop.json")); err != nil {
		t.Fatal(err)
	}
	got, err = settled(t, rig.gate, req.ID)
	if err != nil || got.Status != approval.Rejected || got.Decision.By != TerminalDecider || got.Decision.Expired {
		t.Fatalf("after the turn ended: %+v %v; want declined in the terminal", got, err)
	}
}

// settled reads request id once it is no longer handed over, waiting out lateEventGrace.
func settled(t *testing.T, g *approval.Gate, id string) (approval.Request, error) {
	t.Helper()
	for end := time.Now().Add(lateEventGrace + 3*time.Second); ; time.Sleep(20 * time.Millisecond) {
		r, err := g.Get(context.Background(), id)
		if err != nil || r.Status != approval.Elsewhere || time.Now().After(end) {
			return r, err
		}
	}
}

func TestServiceGateAnsweredInTerminal(t *testing.T) {
	tests := []struct {
		event    string
		approved bool
		comment  string
	}{
		{"post_exitplanmode.json", true, "answered in the terminal — approved: Claude Code went ahead with the plan"},
		{"stop.json", false, "answered in the terminal — declined (the turn ended); plandash's answer no longer reaches Claude"},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			rig := newGateRig(t, Config{})
			req, done := rig.ask(t, context.Background())
			// The async UserPromptSubmit of the same turn may come late: it must not close it.
			if _, err := rig.svc.Handle(context.Background(), fixture(t, "user_prompt_submit.json")); err != nil {
				t.Fatal(err)
			}
			if r, err := rig.gate.Get(context.Background(), req.ID); err != nil || r.Decided() {
				t.Fatalf("the same turn's prompt closed the request: %+v %v", r, err)
			}
			if _, err := rig.svc.Handle(context.Background(), fixture(t, tt.event)); err != nil {
				t.Fatal(err)
			}
			h := wait(t, done)
			if h.err != nil || len(h.answer) != 0 {
				t.Fatalf("answer %q, err %v", h.answer, h.err)
			}
			r, err := rig.gate.Get(context.Background(), req.ID)
			if err != nil || r.Decision == nil || r.Decision.By != TerminalDecider || (r.Status == approval.Approved) != tt.approved {
				t.Fatalf("%+v %v", r, err)
			}
			if r.Decision.Comment != tt.comment {
				t.Errorf("comment %q, want %q", r.Decision.Comment, tt.comment)
			}
		})
	}
}

// The person approves in the terminal's own dialog: Claude Code stops the gate's hook at once,
// before its next event shows the plan went ahead. The request must not be recorded as
// rejected when the hook stops (it was: "rejected by terminal" for a plan the person approved);
// it is "answered in the terminal — outcome not known yet" until that event, which records what
// was answered.
func TestServiceGateHookStoppedThenTerminalApproved(t *testing.T) {
	rig := newGateRig(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	req, done := rig.ask(t, ctx)
	cancel()
	h := wait(t, done)
	if h.err == nil || len(h.answer) != 0 {
		t.Fatalf("answer %q, err %v", h.answer, h.err)
	}
	r, err := rig.gate.Get(context.Background(), req.ID)
	if err != nil || r.Status != approval.Elsewhere || r.Decision != nil || r.Handover == nil || r.Handover.Note != AnsweredInTerminal {
		t.Fatalf("the stopped hook: %+v %v; want %q, no decision before anything showed what the person answered", r, err, AnsweredInTerminal)
	}
	// The inbox no longer offers it: an answer given there would not reach Claude.
	if _, err := rig.gate.Decide(context.Background(), req.ID, approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "no"}); err == nil {
		t.Fatal("a person decided a request answered in the terminal")
	}
	if _, err := rig.svc.Handle(context.Background(), fixture(t, "post_exitplanmode.json")); err != nil {
		t.Fatal(err)
	}
	r, err = rig.gate.Get(context.Background(), req.ID)
	if err != nil || r.Status != approval.Approved || r.Decision.By != TerminalDecider || !strings.HasPrefix(r.Decision.Comment, "answered in the terminal — approved") {
		t.Fatalf("after the plan went ahead: %+v %v", r, err)
	}
}

// TestServiceGateApprovalAfterTheTurnsEnd: Claude Code's hooks are async, so the event saying the
// plan was approved in the terminal can arrive just after the turn's Stop: the request still
// reads approved, not declined because the turn ended.
func TestServiceGateApprovalAfterTheTurnsEnd(t *testing.T) {
	rig := newGateRig(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	req, done := rig.ask(t, ctx)
	cancel()
	wait(t, done)
	for _, ev := range []string{"stop.json", "post_exitplanmode.json"} {
		if _, err := rig.svc.Handle(context.Background(), fixture(t, ev)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(lateEventGrace + 500*time.Millisecond) // the Stop's own settle, had it won, is done by now
	r, err := rig.gate.Get(context.Background(), req.ID)
	if err != nil || r.Status != approval.Approved || r.Decision.By != TerminalDecider {
		t.Fatalf("approved in the terminal, its event after the turn's end: %+v %v", r, err)
	}
}

// TestServiceGateTurnEndsBeforeTheHookIsSeenStopped: under load the turn's Stop can arrive
// while the hook Claude Code stopped is still seen waiting (the request not yet handed over);
// approved in the terminal, the request still reads approved.
func TestServiceGateTurnEndsBeforeTheHookIsSeenStopped(t *testing.T) {
	rig := newGateRig(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	req, done := rig.ask(t, ctx)
	if _, err := rig.svc.Handle(context.Background(), fixture(t, "stop.json")); err != nil {
		t.Fatal(err)
	}
	cancel()
	wait(t, done)
	if _, err := rig.svc.Handle(context.Background(), fixture(t, "post_exitplanmode.json")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(lateEventGrace + 500*time.Millisecond) // the Stop's own settle, had it won, is done by now
	r, err := rig.gate.Get(context.Background(), req.ID)
	if err != nil || r.Status != approval.Approved || r.Decision.By != TerminalDecider {
		t.Fatalf("approved in the terminal, the turn's end before the hook's: %+v %v", r, err)
	}
}

func TestServiceGateNewPlanSupersedesOld(t *testing.T) {
	rig := newGateRig(t, Config{})
	first, done1 := rig.ask(t, context.Background())
	second, done2 := rig.ask(t, context.Background())
	if h := wait(t, done1); h.err != nil || len(h.answer) != 0 {
		t.Fatalf("first: %q %v", h.answer, h.err)
	}
	if r, _ := rig.gate.Get(context.Background(), first.ID); r.Status != approval.Rejected {
		t.Errorf("first not closed: %+v", r)
	}
	if _, err := rig.gate.Decide(context.Background(), second.ID, approval.DecisionInput{Action: approval.Approve, By: "ana"}); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, done2); CheckAnswer(h.answer) != nil || !strings.Contains(string(h.answer), `"allow"`) {
		t.Errorf("second: %q %v", h.answer, h.err)
	}
}

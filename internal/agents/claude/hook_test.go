package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/testkit"
)

// servicePoster posts straight into a real Service, as the HTTP endpoint will.
type servicePoster struct {
	svc *Service

	mu     sync.Mutex
	bodies [][]byte
	waits  []bool
}

func (p *servicePoster) Post(ctx context.Context, body []byte, wait bool) ([]byte, error) {
	p.mu.Lock()
	p.bodies, p.waits = append(p.bodies, body), append(p.waits, wait)
	p.mu.Unlock()
	return p.svc.Handle(ctx, body)
}

// funcPoster is a server that fails, hangs or answers nonsense.
type funcPoster func(ctx context.Context) ([]byte, error)

func (f funcPoster) Post(ctx context.Context, _ []byte, _ bool) ([]byte, error) { return f(ctx) }

func TestRunHookCapture(t *testing.T) {
	p := newPlans(t)
	post := &servicePoster{svc: NewService(p, nil, Config{Host: "server"})}
	var out bytes.Buffer
	if err := RunHook(context.Background(), bytes.NewReader(fixture(t, "pre_todowrite.json")), &out, post, HookOptions{Host: "laptop"}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || len(post.bodies) != 1 || post.waits[0] {
		t.Fatalf("out %q, posts %d, wait %v", out.String(), len(post.bodies), post.waits)
	}
	ev, err := Decode(post.bodies[0])
	if err != nil || ev.Host != "laptop" || ev.ToolName != ToolTodoWrite {
		t.Errorf("posted %+v %v", ev, err)
	}
	d, err := p.Session(context.Background(), SessionKey(fixtureSession))
	if err != nil || len(d.Plans) != 1 || d.Plans[0].ID != PlanTodos {
		t.Errorf("stored %+v %v", d.Plans, err)
	}
}

func TestRunHookGate(t *testing.T) {
	rig := newGateRig(t, Config{})
	post := &servicePoster{svc: rig.svc}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- RunHook(context.Background(), bytes.NewReader(fixture(t, "permission_exitplanmode.json")), &out, post, HookOptions{})
	}()
	var req approval.Request
	select {
	case req = <-rig.created:
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the gate")
	}
	if _, err := rig.gate.Decide(context.Background(), req.ID, approval.DecisionInput{Action: approval.Reject, By: "ana", Comment: "split step 2"}); err != nil {
		t.Fatal(err)
	}
	if err := testkit.Recv(t, done, 30*time.Second, "return of the hook"); err != nil {
		t.Fatal(err)
	}
	var ans hookOut
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil || ans.Out.Decision.Behavior != "deny" || ans.Out.Decision.Message != "split step 2" {
		t.Errorf("printed %q: %v", out.String(), err)
	}
	if !post.waits[0] {
		t.Error("the plan prompt was posted without waiting")
	}
}

func TestRunHookStaysSilent(t *testing.T) {
	gateBody := fixture(t, "permission_exitplanmode.json")
	tests := []struct {
		name  string
		stdin []byte
		post  funcPoster
	}{
		{"server down", gateBody, func(context.Context) ([]byte, error) { return nil, errors.New("connection refused") }},
		{"server hangs", gateBody, func(ctx context.Context) ([]byte, error) { <-ctx.Done(); return nil, ctx.Err() }},
		{"garbage answer", gateBody, func(context.Context) ([]byte, error) { return []byte("<html>proxy error</html>"), nil }},
		{"foreign answer", gateBody, func(context.Context) ([]byte, error) {
			return []byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`), nil
		}},
		{"capture answer ignored", fixture(t, "stop.json"), func(context.Context) ([]byte, error) { return []byte(`{"continue":false}`), nil }},
		{"garbage event", []byte(`{"session_id":`), func(context.Context) ([]byte, error) { panic("must not post") }},
		{"oversized event", bytes.Repeat([]byte(" "), MaxEventBytes+1), func(context.Context) ([]byte, error) { panic("must not post") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := RunHook(context.Background(), bytes.NewReader(tt.stdin), &out, tt.post, HookOptions{CaptureTimeout: 50 * time.Millisecond, GateTimeout: 50 * time.Millisecond})
			if err != nil || out.Len() != 0 {
				t.Errorf("err %v, printed %q", err, out.String())
			}
		})
	}
}

// blockingReader never ends, like a stdin nobody closes.
type blockingReader struct{ ch chan struct{} }

func (b blockingReader) Read([]byte) (int, error) { <-b.ch; return 0, errors.New("closed") }

func TestRunHookStdinNeverCloses(t *testing.T) {
	r := blockingReader{make(chan struct{})}
	defer close(r.ch)
	var out bytes.Buffer
	post := funcPoster(func(context.Context) ([]byte, error) { panic("must not post") })
	if err := RunHook(context.Background(), r, &out, post, HookOptions{CaptureTimeout: 20 * time.Millisecond}); err != nil || out.Len() != 0 {
		t.Errorf("%v %q", err, out.String())
	}
}

func TestWithHost(t *testing.T) {
	for _, body := range []string{`{}`, ` { } `, `{"a":1}`, "{\n \"session_id\": \"s\"\n}"} {
		got := withHost([]byte(body), `dev"box`)
		ev, err := Decode(got)
		if err != nil || ev.Host != `dev"box` || !strings.HasPrefix(string(got), `{"plandash_host":`) {
			t.Errorf("%s → %s: %v", body, got, err)
		}
	}
}

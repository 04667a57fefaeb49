package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/testkit"
	"github.com/plandash/plandash/internal/waits"
)

// httpPoster posts to a real HTTP server, as `plandash hook codex` does through the client.
type httpPoster struct{ url string }

func (p httpPoster) Post(ctx context.Context, body []byte, _ bool) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return b, err
}

// hookRig is a real server (httptest) whose handler is Service.Handle on a real gate and a
// real plans.Service; created receives each request that reaches the gate.
type hookRig struct {
	url     string
	gate    *approval.Gate
	plans   *plans.Service
	asked   *waits.Asked
	created chan approval.Request
}

func newHookRig(t *testing.T) *hookRig { return newHookRigWith(t, Config{}) }

// newHookRigWith is newHookRig with cfg, whose Asker is always a real waits.Asked on SQLite.
func newHookRigWith(t *testing.T, cfg Config) *hookRig {
	t.Helper()
	r := &hookRig{gate: newGate(t), plans: newPlans(t), asked: waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil), created: make(chan approval.Request, 8)}
	r.gate.OnChange(func(c approval.Change) {
		if c.Request != nil && !c.Request.Decided() {
			r.created <- *c.Request
		}
	})
	cfg.Host, cfg.Asker = "devbox", r.asked
	svc := NewService(ApplyTo(r.plans, nil), r.gate, cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer, err := svc.Handle(req.Context(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(answer)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

// stopEvent is a Stop payload as Codex 0.169.0 sends it (agenttest recorded one).
func stopEvent(transcript, last string, active bool) string {
	b, _ := json.Marshal(map[string]any{"session_id": realThread, "turn_id": "01a20aa7-d7e9-72a3-80ff-808156a910bb",
		"transcript_path": transcript, "cwd": "/w/project", "hook_event_name": "Stop", "model": "gpt-5",
		"permission_mode": "bypassPermissions", "stop_hook_active": active, "last_assistant_message": last})
	return string(b)
}

// realTranscript copies the real rollout under a rollout file name.
func realTranscript(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rollout-2026-11-23T23-05-01-"+realThread+".jsonl")
	if err := os.WriteFile(p, fixture(t, "exec_update_plan.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunHookGate runs RunHook against the real server and decides at the real gate.
func TestRunHookGate(t *testing.T) {
	tests := []struct {
		name     string
		last     string // last_assistant_message; the plan is read from the transcript otherwise
		decide   *approval.DecisionInput
		wantPlan string // the plan at the gate, as text
		want     string // the hook's output
	}{
		{name: "approve prints nothing", last: "Done.", decide: &approval.DecisionInput{Action: approval.Approve, By: "ann"},
			wantPlan: "# Env override", want: ""},
		{name: "reject blocks with the feedback", last: "Done.", decide: &approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "add fuzz tests"},
			want: `{"decision":"block","reason":"The user asked for changes to your plan in plandash: add fuzz tests"}`},
		{name: "request changes blocks with the review", last: "<proposed_plan>\n# Mine\n- step one\n</proposed_plan>", wantPlan: "# Mine",
			decide: &approval.DecisionInput{Action: approval.RequestChanges, By: "ann", Feedback: []approval.Comment{{Target: approval.TargetLine, Line: 2, Comment: "which step?"}}},
			want:   `"reason":"The reviewer requested changes to the plan. Revise it and submit it again.\n\n1. On line 2 (\"- step one\"):\n   which step?"`},
		{name: "modify blocks with the edit", last: "<proposed_plan>\n# Mine\n</proposed_plan>", wantPlan: "# Mine",
			decide: &approval.DecisionInput{Action: approval.Modify, By: "ann", Plan: &approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "# Edited"}},
			want:   `"reason":"The user edited your plan in plandash. Revise your plan to this, then present it again:\n\n# Edited"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rig := newHookRig(t)
			in := stopEvent(realTranscript(t), tc.last, false)
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				done <- RunHook(context.Background(), strings.NewReader(in), &out, httpPoster{rig.url + "/api/v1/hooks/codex"}, HookOptions{Host: "laptop"})
			}()
			var req approval.Request
			select {
			case req = <-rig.created:
			case err := <-done:
				t.Fatalf("RunHook returned before the gate: %v %q", err, out.String())
			case <-time.After(20 * time.Second):
				t.Fatal("no request reached the gate")
			}
			if req.SessionID != SessionKey(realThread) || req.Agent != "Codex" || !strings.Contains(req.Context, "laptop") {
				t.Errorf("request %+v", req)
			}
			if tc.wantPlan != "" && !strings.HasPrefix(req.Plan.Markdown, tc.wantPlan) {
				t.Errorf("plan at the gate: %+v", req.Plan)
			}
			if _, err := rig.gate.Decide(context.Background(), req.ID, *tc.decide); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("RunHook did not return after the decision")
			}
			if got := out.String(); tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("output %q, want %q", got, tc.want)
			}
			if out.Len() > 0 {
				if err := CheckAnswer(out.Bytes()); err != nil {
					t.Error(err)
				}
			}
			d, err := rig.plans.Session(context.Background(), SessionKey(realThread))
			if err != nil || d.Session.Name() != "Codex" || d.Session.Cwd != "/w/project" {
				t.Errorf("session %+v %v", d.Session, err)
			}
		})
	}
}

// TestRunHookQuiet: every way the hook must print nothing and not hold Codex.
func TestRunHookQuiet(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-"+realThread+".jsonl")
	if err := os.WriteFile(empty, []byte(metaLine(realThread, "/w")), 0o644); err != nil {
		t.Fatal(err)
	}
	// A FIFO named like a rollout: the old open(2) waited for a writer for ever.
	fifo := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-"+realThread+".jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"decision":"approve"}`)) }))
	defer garbage.Close()
	for name, tc := range map[string]struct{ in, url string }{
		"not JSON":            {`{"a":`, garbage.URL},
		"not Stop":            {`{"session_id":"s","hook_event_name":"PreToolUse"}`, garbage.URL},
		"turn without a plan": {stopEvent(empty, "All done.", false), garbage.URL},
		"transcript a FIFO":   {stopEvent(fifo, "", false), garbage.URL},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				done <- RunHook(context.Background(), strings.NewReader(tc.in), &out, httpPoster{tc.url}, HookOptions{})
			}()
			select {
			case err := <-done:
				if err != nil || out.Len() != 0 {
					t.Errorf("err %v, output %q", err, out.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the hook hangs, holding Codex")
			}
		})
	}
}

// TestRunHookUndecided: a plan that gets no decision is not passed off as approved: the turn
// ends with a systemMessage that tells the person plandash did not decide, and stderr says why.
func TestRunHookUndecided(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"decision":"approve"}`)) }))
	defer garbage.Close()
	for name, url := range map[string]string{"plandash down": down.URL, "foreign answer": garbage.URL} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			in := stopEvent(realTranscript(t), "", false)
			if err := RunHook(context.Background(), strings.NewReader(in), &out, httpPoster{url}, HookOptions{Stderr: &errOut}); err != nil {
				t.Fatal(err)
			}
			var v map[string]string
			if err := json.Unmarshal(out.Bytes(), &v); err != nil || len(v) != 1 || !strings.Contains(v["systemMessage"], "Nobody approved this plan") {
				t.Errorf("output %q, want only a systemMessage saying nobody approved", out.String())
			}
			if !strings.Contains(errOut.String(), "left to you") {
				t.Errorf("stderr %q does not say why", errOut.String())
			}
		})
	}
}

// TestHandleClosesRequestWhenHookGivesUp: the hook's context ending hands the request to Codex's
// terminal: nobody rejected it, and plandash's answer no longer reaches Codex.
func TestHandleClosesRequestWhenHookGivesUp(t *testing.T) {
	rig := newHookRig(t)
	svc := NewService(ApplyTo(rig.plans, nil), rig.gate, Config{Host: "h"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := svc.Handle(ctx, []byte(stopEvent("", "<proposed_plan>\n# P\n</proposed_plan>", false)))
		done <- err
	}()
	var req approval.Request
	select {
	case req = <-rig.created:
	case <-time.After(20 * time.Second):
		t.Fatal("no request")
	}
	cancel()
	testkit.Recv(t, done, 30*time.Second, "return of Handle")
	got, err := rig.gate.Get(context.Background(), req.ID)
	if err != nil || got.Status != approval.Elsewhere || got.Decision != nil || got.Handover == nil || got.Handover.By != HookDecider ||
		!strings.Contains(got.Handover.Note, "outcome not known yet") {
		t.Errorf("request after the hook gave up: %+v %v; want handed to the terminal, not rejected", got, err)
	}
	if got.Then != TerminalDecides {
		t.Errorf("then = %q, want %q: at the deadline the terminal decides, not the default", got.Then, TerminalDecides)
	}
}

func TestFindTurnPlan(t *testing.T) {
	lines, _ := DecodeAll(fixture(t, "exec_update_plan.jsonl"))
	p, ok := FindTurnPlan(lines, "01a20aa7-d7e9-72a3-80ff-808156a910bb")
	if !ok || p.Kind != "markdown" || p.Markdown != "# Env override\n\n1. Read\n2. Write" {
		t.Errorf("latest plan of the turn: %+v %v", p, ok)
	}
	if _, ok := FindTurnPlan(lines, "another-turn"); ok {
		t.Error("found a plan in a turn that made none")
	}
	p, ok = FindTurnPlan(lines[:12], "")
	if !ok || p.Kind != "items" || p.Explanation != "first cut" || len(p.Steps) != 2 {
		t.Errorf("update_plan plan: %+v %v", p, ok)
	}
}

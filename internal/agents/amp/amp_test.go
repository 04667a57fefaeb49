package amp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
)

// documented returns the events in testdata/documented (see its README), in order.
func documented(t testing.TB) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "documented", "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no documented events: %v", err)
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

const thread = "amp:T-5b1f0e9a-7c2d-4e11-8a6b-2c9d3e4f5a61"

// TestCapture: a turn's events give one session with its directory, host, prompt and todo
// list, and list the thread as waiting for its next prompt at the turn's end.
func TestCapture(t *testing.T) {
	p := agenttest.Plans(t)
	asked := waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)
	svc := NewService(p, nil, Config{Host: "server", Asker: asked})
	ctx := context.Background()
	for _, b := range documented(t) {
		if !svc.Captures(b) && !strings.Contains(string(b), "agent.end") {
			t.Errorf("Captures(%s) = false", b)
		}
		if out, err := svc.Handle(ctx, b); err != nil || out != nil {
			t.Fatalf("Handle(%s) = %s, %v", b, out, err)
		}
	}
	todos, err := p.Plan(ctx, thread, PlanTodos)
	if err != nil || len(todos.Entries) != 3 {
		t.Fatalf("todos = %+v, %v", todos, err)
	}
	want := []plans.Entry{{Content: "Read the checkout flow", Status: plans.StatusCompleted, Priority: "high"},
		{Content: "Split the cart service", Status: plans.StatusInProgress, Priority: "medium"},
		{Content: "Write tests", Status: plans.StatusPending, Priority: "low"}}
	for i, e := range todos.Entries {
		if e.Content != want[i].Content || e.Status != want[i].Status || e.Priority != want[i].Priority {
			t.Errorf("entry %d = %+v, want %+v", i, e, want[i])
		}
	}
	sess, err := p.SessionOnly(ctx, thread)
	if err != nil || sess.Cwd != "/home/ann/shop" || sess.Host != "ann-laptop" || sess.AgentTitle != AgentTitle {
		t.Errorf("session = %+v, %v", sess, err)
	}
	r, err := asked.Get(ctx, waits.InputID(thread))
	if err != nil || !r.Open() || r.Kind != waits.KindInput {
		t.Errorf("input wait = %+v, %v", r, err)
	}
}

// TestGate: with a gate, the end of a turn that wrote a todo list waits for the decision:
// approve ends the turn, reject and modify send the plan back as a follow-up message.
func TestGate(t *testing.T) {
	tests := []struct {
		in   approval.DecisionInput
		want string
	}{
		{approval.DecisionInput{Action: approval.Approve, By: "ann"}, ""},
		{approval.DecisionInput{Action: approval.Reject, By: "ann", Comment: "Tests first"}, "My feedback: Tests first"},
		{approval.DecisionInput{Action: approval.Modify, By: "ann", Plan: &approval.PlanBody{Type: approval.TypeItems,
			Entries: []plans.Entry{{Content: "Write tests", Priority: "high", Status: plans.StatusPending}}}}, "1. Write tests"},
	}
	for _, tt := range tests {
		t.Run(string(tt.in.Action), func(t *testing.T) {
			g := agenttest.Gate(t)
			created := make(chan approval.Request, 2)
			g.OnChange(func(c approval.Change) {
				if c.Request != nil && !c.Request.Decided() {
					created <- *c.Request
				}
			})
			svc := NewService(agenttest.Plans(t), g, Config{})
			go func() {
				r := <-created
				if len(r.Plan.Entries) != 3 || r.SessionID != thread {
					t.Errorf("request = %+v", r)
				}
				if _, err := g.Decide(context.Background(), r.ID, tt.in); err != nil {
					t.Error(err)
				}
			}()
			var out []byte
			for _, b := range documented(t) {
				var err error
				if out, err = svc.Handle(context.Background(), b); err != nil {
					t.Fatal(err)
				}
			}
			if err := checkAnswer(out); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var v struct{ UserMessage string }
			_ = json.Unmarshal(out, &v)
			if (tt.want == "") != (len(out) == 0) || !strings.Contains(v.UserMessage, tt.want) {
				t.Errorf("answer = %s, want %q", out, tt.want)
			}
		})
	}
}

// TestGateOnlyPlans: a turn that wrote no todo list, did not finish, or comes from a plugin
// installed without the gate, is not held.
func TestGateOnlyPlans(t *testing.T) {
	svc := NewService(agenttest.Plans(t), agenttest.Gate(t), Config{})
	evs := documented(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, seq := range [][][]byte{
		{evs[1], evs[4]}, // no todo_write in the turn
		{evs[1], evs[3], []byte(strings.Replace(string(evs[4]), `"done"`, `"cancelled"`, 1))},
		{evs[1], evs[3], []byte(strings.Replace(string(evs[4]), `"gate":true`, `"gate":false`, 1))}, // installed without --gate
	} {
		for _, b := range seq {
			if out, err := svc.Handle(ctx, b); err != nil || out != nil {
				t.Fatalf("Handle(%s) = %s, %v", b, out, err)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for in, want := range map[string]string{
		"": "empty", "[]": "not a JSON object", "null": "not null", "\xff": "UTF-8", `{"thread":{"id":"T-1"}}`: "names no event",
	} {
		if _, err := Decode([]byte(in)); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "amp plugin event: ") {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
	svc := NewService(agenttest.Plans(t), nil, Config{})
	if _, err := svc.Handle(context.Background(), []byte(`{"event":"agent.start"}`)); err == nil || !strings.Contains(err.Error(), "thread.id") {
		t.Errorf("no thread: %v", err)
	}
}

func TestInstallPlugin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugins")
	rep, err := Install(dir, PluginOptions{Server: "http://h:1", TokenFile: "/t", Gate: true})
	if err != nil || rep.Action != "created" {
		t.Fatalf("install: %+v %v", rep, err)
	}
	b, _ := os.ReadFile(rep.Path)
	if !strings.HasPrefix(string(b), PluginMarker) || !strings.Contains(string(b), `= {"server":"http://h:1","tokenFile":"/t","gate":true} // plandash:config`) {
		t.Errorf("plugin:\n%s", b)
	}
	if rep, err := Install(dir, PluginOptions{Server: "http://h:1", TokenFile: "/t", Gate: true}); err != nil || rep.Changed {
		t.Errorf("second install: %+v %v", rep, err)
	}
	if rep, err := Install(dir, PluginOptions{Server: "http://h:1", TokenFile: "/t"}); err != nil || rep.Action != "updated" {
		t.Errorf("install without the gate: %+v %v", rep, err)
	}
	if rep, err := Uninstall(dir, ""); err != nil || rep.Action != "removed" {
		t.Errorf("uninstall: %+v %v", rep, err)
	}
	other := filepath.Join(dir, PluginFile)
	if err := os.WriteFile(other, []byte("export default () => {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(dir, PluginOptions{}); err == nil {
		t.Error("a plugin of the user's was overwritten")
	}
	if _, err := Uninstall(dir, ""); err == nil {
		t.Error("a plugin of the user's was removed")
	}
	env := map[string]string{"HOME": "/home/ann"}
	if got := PluginDir("", func(k string) string { return env[k] }); got != "/home/ann/.config/amp/plugins" {
		t.Errorf("PluginDir = %s", got)
	}
	if got := PluginDir("/p", nil); got != "/p/.amp/plugins" {
		t.Errorf("PluginDir(project) = %s", got)
	}
}

// FuzzTranslate: any posted event is refused with an error naming it, or recorded; translated
// lines always decode.
func FuzzTranslate(f *testing.F) {
	for _, b := range documented(f) {
		f.Add(b)
	}
	for _, s := range []string{`{"event":"tool.result","thread":{"id":"T"},"tool":"todo_write","status":"done","input":{"todos":7}}`,
		`{"event":"x","thread":{"id":"T"},"id":{"a":1}}`, `{"event":"agent.start","thread":"T"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "amp plugin event: ") {
				t.Fatalf("error without its subject: %v", err)
			}
			return
		}
		msgs, err := Translate(ev, State{Announce: true})
		if ev.ThreadID == "" {
			if err == nil {
				t.Fatal("no thread, no error")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("line %s: %v", m, err)
			}
		}
	})
}

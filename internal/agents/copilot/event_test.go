package copilot

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestDecodeCaptured reads the payloads the real Copilot CLI 1.0.102 sent (testdata/captured):
// each event's name is guessed right from its fields, toolArgs arrives as an object.
func TestDecodeCaptured(t *testing.T) {
	for _, run := range []string{"todos", "plan", "perm"} {
		names, bodies := captured(t, run)
		for i, b := range bodies {
			ev, err := Decode(b)
			if err != nil {
				t.Fatalf("%s %s: %v", run, names[i], err)
			}
			want := names[i][strings.Index(names[i], "_")+1:]
			if ev.HookEventName != want || ev.SessionID == "" || ev.Cwd == "" || ev.Timestamp == 0 {
				t.Errorf("%s %s: %+v", run, names[i], ev)
			}
			if ev.ToolName != "" && len(ev.ToolArgs) == 0 {
				t.Errorf("%s %s: no toolArgs", run, names[i])
			}
		}
	}
}

func TestDecode(t *testing.T) {
	ev, err := Decode([]byte(`{"sessionId":"s","toolName":"sql","toolArgs":"{\"query\":\"select * from todos\"}","plandash_event":"postToolUse","toolResult":{"resultType":"success","textResultForLlm":"ok"}}`))
	if err != nil || ev.HookEventName != EventPostToolUse || !TouchesTodos(ev.ToolArgs) || ev.ResultType != "success" {
		t.Errorf("documented string toolArgs: %+v %v", ev, err)
	}
	for _, bad := range []string{``, `null`, `[]`, `"x"`, "{\"a\":\"\xff\"}", `{`} {
		if _, err := Decode([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "copilot hook payload: ") {
			t.Errorf("Decode(%q) = %v", bad, err)
		}
	}
	if _, err := Decode([]byte(`{"toolArgs":5,"timestamp":"x","toolResult":[],"error":"e","plandash_todos":7}`)); err != nil {
		t.Errorf("odd field types fail the event: %v", err)
	}
}

// TestApplyCaptured sends the real CLI's todos session, with the list the hook read added,
// through the Service into a real plans.Service: the session shows, named, and ends.
func TestApplyCaptured(t *testing.T) {
	ctx := context.Background()
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "devbox"})
	names, bodies := captured(t, "todos")
	var sid string
	for i, b := range bodies {
		if strings.HasSuffix(names[i], "postToolUse") && i == len(bodies)-3 {
			b = []byte(strings.Replace(string(b), `{"sessionId"`, `{"plandash_todos":{"todos":[{"id":"a","title":"Reading code","status":"in_progress"},{"id":"b","title":"Writing tests","status":"pending"}]},"sessionId"`, 1))
		}
		ev, _ := Decode(b)
		sid = ev.SessionID
		if ans, err := svc.Handle(ctx, b); err != nil || len(ans) != 0 {
			t.Fatalf("%s: answer %q, err %v", names[i], ans, err)
		}
		if !svc.Captures(b) {
			t.Errorf("%s: not a capture", names[i])
		}
	}
	d, err := p.Session(ctx, SessionKey(sid))
	if err != nil {
		t.Fatal(err)
	}
	if d.Session.Name() != AgentTitle || d.Session.Host != "devbox" || !d.Session.Ended {
		t.Errorf("session: %+v", d.Session)
	}
	if len(d.Plans) != 1 || len(d.Plans[0].Entries) != 2 || d.Plans[0].Entries[0].Status != "in_progress" {
		t.Errorf("plans: %+v", d.Plans)
	}
}

// TestToolCallsByTitle: a finished tool call shows by its title; its result (the project's
// code) is neither sent by the hook nor kept by the server.
func TestToolCallsByTitle(t *testing.T) {
	ctx := context.Background()
	body := []byte(`{"sessionId":"s1","cwd":"/p","toolName":"bash","toolArgs":{"command":"npm test"},"toolResult":{"resultType":"failure","textResultForLlm":"SECRET=hunter2"}}`)
	var p poster
	if err := RunHook(ctx, bytes.NewReader(body), &bytes.Buffer{}, &p, HookOptions{Event: EventPostToolUse}); err != nil || len(p.got) != 1 {
		t.Fatalf("posted %d: %v", len(p.got), err)
	}
	if strings.Contains(string(p.got[0]), "hunter2") {
		t.Errorf("the hook sent the tool's result: %s", p.got[0])
	}
	plans := newPlans(t)
	svc := NewService(plans, nil, Config{})
	if _, err := svc.Handle(ctx, body); err != nil {
		t.Fatal(err)
	}
	acts, err := plans.RecentActivity(ctx, SessionKey("s1"))
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, a := range acts {
		if strings.Contains(string(a.Raw)+a.Text, "hunter2") {
			t.Errorf("the result was kept: %+v", a)
		}
		titles = append(titles, a.Kind+":"+a.Text+string(a.Raw))
	}
	calls, err := plans.ToolCalls(ctx, SessionKey("s1"))
	if err != nil || len(calls) != 1 || calls[0].Title != "bash: npm test" || calls[0].Status != "failed" || strings.Contains(fmt.Sprint(calls[0]), "hunter2") {
		t.Errorf("tool calls %+v %v (activity %q)", calls, err, titles)
	}
}

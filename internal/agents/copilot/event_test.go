package copilot

import (
	"context"
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

package copilot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// poster records what RunHook posted and answers with answer or err.
type poster struct {
	answer []byte
	err    error
	got    [][]byte
	wait   []bool
}

func (p *poster) Post(_ context.Context, body []byte, wait bool) ([]byte, error) {
	p.got, p.wait = append(p.got, body), append(p.wait, wait)
	return p.answer, p.err
}

func TestRunHook(t *testing.T) {
	home := t.TempDir()
	_, todos := captured(t, "todos")
	_, plan := captured(t, "plan")
	first, _ := Decode(todos[0])
	sid := first.SessionID
	dir := filepath.Join(home, "session-state", sid)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte("# Plan\n\n1. Go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := copilotDB(t, `INSERT INTO todos (id, title) VALUES ('a', 'Reading code')`)
	b, _ := os.ReadFile(db)
	_ = os.WriteFile(filepath.Join(dir, "session.db"), b, 0o644)
	opts := HookOptions{CopilotHome: home, Host: "box"}
	deny := Answer(Decision{Deny: true, Reason: "no"})
	planEv := []byte(strings.ReplaceAll(string(plan[1]), "b804717e-add1-4fb0-8447-535ba07fc87f", sid))

	tests := []struct {
		name      string
		in        []byte
		event     string
		p         poster
		posted    string // a substring of the posted body; "" for nothing posted
		out       string
		stderrHas string
	}{
		{name: "todos read after sql", in: todos[3], event: EventPostToolUse, posted: `"plandash_todos":{"todos":[{"id":"a","title":"Reading code","status":"pending"}]}`},
		{name: "other tools' preToolUse not posted", in: todos[2]},
		{name: "plan read and held", in: planEv, p: poster{answer: deny}, posted: `"plandash_plan":"# Plan\n\n1. Go\n"`, out: string(deny)},
		{name: "approve prints nothing", in: planEv, posted: `"plandash_event":"preToolUse"`},
		{name: "server down: the menu asks", in: planEv, p: poster{err: errors.New("refused")}, posted: `"plandash_host":"box"`, stderrHas: "could not get a decision"},
		{name: "foreign answer not printed", in: planEv, p: poster{answer: []byte(`{"permissionDecision":"allow"}`)}, posted: "exit_plan_mode", stderrHas: "unusable"},
		{name: "capture failure is silent", in: todos[0], p: poster{err: errors.New("refused")}, posted: `"plandash_event":"sessionStart"`},
		{name: "not JSON", in: []byte("nope")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			o := opts
			o.Event, o.Stderr = tt.event, &stderr
			p := tt.p
			if err := RunHook(context.Background(), bytes.NewReader(tt.in), &out, &p, o); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.posted == "" && len(p.got) != 0:
				t.Errorf("posted %s", p.got[0])
			case tt.posted != "" && (len(p.got) != 1 || !strings.Contains(string(p.got[0]), tt.posted)):
				t.Errorf("posted %q, want it to hold %s", p.got, tt.posted)
			}
			if out.String() != tt.out {
				t.Errorf("printed %q, want %q", out.String(), tt.out)
			}
			if !strings.Contains(stderr.String(), tt.stderrHas) || (tt.stderrHas == "" && stderr.Len() > 0) {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

package cline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// poster answers every post with answer and err, and keeps what it was sent.
type poster struct {
	answer []byte
	err    error
	sent   [][]byte
	waited []bool
}

func (p *poster) Post(_ context.Context, body []byte, wait bool) ([]byte, error) {
	p.sent = append(p.sent, body)
	p.waited = append(p.waited, wait)
	return p.answer, p.err
}

func TestRunHook(t *testing.T) {
	cancel := Answer(Decision{Cancel: true, Reason: "no"})
	tests := []struct {
		name    string
		event   string
		answer  []byte
		err     error
		want    string // what the hook prints: "" nothing, else a substring
		gateOut bool
	}{
		{"capture", "task_start.json", nil, nil, "", false},
		{"capture, server down", "task_start.json", nil, errors.New("refused"), "", false},
		{"gate approved", "pre_tool_use_switch.json", nil, nil, "", true},
		{"gate rejected", "pre_tool_use_switch.json", cancel, nil, `"cancel":true`, true},
		{"gate, server down", "pre_tool_use_switch.json", nil, errors.New("refused"), "stays in plan mode", true},
		{"gate, foreign answer", "pre_tool_use_switch.json", []byte(`{"decision":"allow"}`), nil, "stays in plan mode", true},
		{"other tool", "pre_tool_use_run.json", cancel, nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &poster{answer: tt.answer, err: tt.err}
			var out, stderr bytes.Buffer
			err := RunHook(context.Background(), bytes.NewReader(fixture(t, tt.event)), &out, p, HookOptions{Host: "box", Stderr: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			if (tt.want == "") != (out.Len() == 0) || !strings.Contains(out.String(), tt.want) {
				t.Errorf("printed %q, want %q", out.String(), tt.want)
			}
			if out.Len() > 0 {
				if err := CheckAnswer(out.Bytes()); err != nil {
					t.Errorf("printed an answer Cline would not take: %v", err)
				}
			}
			if len(p.sent) != 1 || p.waited[0] != tt.gateOut || !bytes.Contains(p.sent[0], []byte(`"plandash_host":"box"`)) {
				t.Errorf("posted %q (wait %v)", p.sent, p.waited)
			}
		})
	}
}

func TestRunHookBadInput(t *testing.T) {
	p := &poster{}
	var out bytes.Buffer
	for _, in := range []string{"", "not json", `{"hookName":"agent_start"}`, strings.Repeat("x", 100)} {
		if err := RunHook(context.Background(), strings.NewReader(in), &out, p, HookOptions{}); err != nil || out.Len() != 0 {
			t.Errorf("RunHook(%q) = %v, printed %q", in, err, out.String())
		}
	}
	if len(p.sent) != 0 {
		t.Errorf("posted %q", p.sent)
	}
}

// TestEnrichFromClineFiles: the hook reads, from Cline's own files, the plan a gate event is
// about, and the mode of a turn that ended.
func TestEnrichFromClineFiles(t *testing.T) {
	data := t.TempDir()
	var ev Event
	if err := json.Unmarshal(fixture(t, "pre_tool_use_switch.json"), &ev); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "sessions", ev.SessionID())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ev.SessionID()+".messages.json"), fixture(t, "messages.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &poster{}
	if err := RunHook(context.Background(), bytes.NewReader(fixture(t, "pre_tool_use_switch.json")), &bytes.Buffer{}, p, HookOptions{DataDir: data}); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(p.sent[0])
	if err != nil || got.Plan != "# Parser plan\n\n1. Tokenize\n2. Parse" {
		t.Errorf("gate event's plan = %q, %v", got.Plan, err)
	}
	if m := SessionMode(data, ev.SessionID(), "", 0); m != "plan" {
		t.Errorf("SessionMode = %q, want plan", m)
	}
	for _, bad := range []string{"../x", "a/b", "", "."} {
		if m := SessionMode(data, bad, "", 0); m != "" {
			t.Errorf("SessionMode(%q) = %q, want nothing", bad, m)
		}
		if p := LastPlan(data, bad); p != "" {
			t.Errorf("LastPlan(%q) = %q, want nothing", bad, p)
		}
	}
}

func TestLastMode(t *testing.T) {
	for in, want := range map[string]string{
		`"text": "<user_input mode=\"plan\">x</user_input>"`:                                                                           "plan",
		`"<user_input mode=\"act\">x" … "<user_input mode=\"plan\">y" … "explains <user_input mode=\"...\">"`:                          "plan",
		`"<user_input mode=\"plan\">go</user_input>"}]},{"role":"assistant","content":[{"type":"tool_use","name":"switch_to_act_mode"`: "act",
		`"<user_input mode=\"weird\">x"`: "",
		`nothing`:                        "",
	} {
		if got := LastMode([]byte(in)); got != want {
			t.Errorf("LastMode(%s) = %q, want %q", in, got, want)
		}
	}
}

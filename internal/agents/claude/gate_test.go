package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnswer(t *testing.T) {
	in := json.RawMessage(`{"plan":"# P","planFilePath":"/p.md"}`)
	tests := []struct {
		name string
		d    Decision
		want string
	}{
		{"no decision", Decision{}, ``},
		{"allow echoes the input", Decision{Behavior: "allow", Input: in},
			`{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"plan":"# P","planFilePath":"/p.md"}},"hookEventName":"PermissionRequest"}}`},
		{"allow with a mode", Decision{Behavior: "allow", Mode: ModeAcceptEdits, Input: in},
			`{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"plan":"# P","planFilePath":"/p.md"},"updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]},"hookEventName":"PermissionRequest"}}`},
		{"allow without input still has updatedInput", Decision{Behavior: "allow"},
			`{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{}},"hookEventName":"PermissionRequest"}}`},
		{"deny carries the reason", Decision{Behavior: "deny", Message: "Use the existing AuthService"},
			`{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"Use the existing AuthService"},"hookEventName":"PermissionRequest"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Answer(tt.d)
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if err := CheckAnswer(got); err != nil {
				t.Errorf("Answer's own output fails CheckAnswer: %v", err)
			}
		})
	}
	rev := Revise("# P2\n1. a", "tighter")
	if rev.Behavior != "deny" || !strings.Contains(rev.Message, "Revise the plan to this") || !strings.Contains(rev.Message, "# P2\n1. a") || !strings.Contains(rev.Message, "tighter") {
		t.Errorf("revise: %+v", rev)
	}
}

func TestCheckAnswer(t *testing.T) {
	for _, bad := range []string{`nope`, `{}`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","decision":{"behavior":"allow","updatedInput":{}}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask","message":"x"}}}`} {
		if CheckAnswer([]byte(bad)) == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if CheckAnswer(nil) != nil || CheckAnswer([]byte(" \n")) != nil {
		t.Error("empty answers are fine")
	}
}

func TestClosedInTerminal(t *testing.T) {
	tests := []struct {
		ev               Event
		closed, approved bool
	}{
		{Event{HookEventName: EventPostToolUse, ToolName: ToolExitPlanMode}, true, true},
		{Event{HookEventName: EventPostToolUse, ToolName: "Bash"}, false, false},
		{Event{HookEventName: EventUserPromptSubmit}, true, false},
		{Event{HookEventName: EventStop}, true, false},
		{Event{HookEventName: EventPermissionRequest, ToolName: ToolExitPlanMode}, true, false},
		{Event{HookEventName: EventPermissionRequest, ToolName: "Bash"}, false, false},
		{Event{HookEventName: EventPreToolUse, ToolName: ToolExitPlanMode}, false, false},
		{Event{HookEventName: EventNotification}, false, false},
	}
	for _, tt := range tests {
		c, a := ClosedInTerminal(tt.ev)
		if c != tt.closed || a != tt.approved {
			t.Errorf("%s %s: got %v %v", tt.ev.HookEventName, tt.ev.ToolName, c, a)
		}
	}
}

func TestReadPlanFile(t *testing.T) {
	cwd, home, outside := t.TempDir(), t.TempDir(), t.TempDir()
	plansDir := filepath.Join(home, ".claude", "plans")
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(plansDir, "snug-otter.md"), "# From plans")
	write(filepath.Join(cwd, "docs", "plan.md"), "# From cwd")
	write(filepath.Join(outside, "secret.md"), "secret")
	write(filepath.Join(cwd, "big.md"), strings.Repeat("x", 2048))
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(cwd, "link.md")); err != nil {
		t.Fatal(err)
	}
	roots := []string{cwd, plansDir}
	tests := []struct {
		path, want, err string
	}{
		{filepath.Join(plansDir, "snug-otter.md"), "# From plans", ""},
		{filepath.Join(cwd, "docs", "plan.md"), "# From cwd", ""},
		{filepath.Join(outside, "secret.md"), "", "outside"},
		{filepath.Join(cwd, "..", filepath.Base(outside), "secret.md"), "", "outside"},
		{filepath.Join(cwd, "link.md"), "", "could not be read"},
		{filepath.Join(cwd, "missing.md"), "", "could not be read"},
		{filepath.Join(cwd, "big.md"), "", "limit"},
		{"docs/plan.md", "", "absolute"},
	}
	for _, tt := range tests {
		got, err := ReadPlanFile(tt.path, roots, 1024)
		if got != tt.want || (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: got %q, %v; want %q, %q", tt.path, got, err, tt.want, tt.err)
		}
	}

	ev := Event{SessionID: "s", Cwd: cwd, HookEventName: EventPermissionRequest, ToolName: ToolExitPlanMode,
		ToolInput: json.RawMessage(`{"planFilePath":"` + filepath.Join(plansDir, "snug-otter.md") + `"}`)}
	if pr := NewPlanRequest(ev, home); pr.Markdown != "# From plans" || pr.Unreadable != "" {
		t.Errorf("plan from the file: %+v", pr)
	}
	ev.ToolInput = json.RawMessage(`{"planFilePath":"` + filepath.Join(outside, "secret.md") + `"}`)
	if pr := NewPlanRequest(ev, home); pr.Markdown != "" || !strings.Contains(pr.Unreadable, "outside") {
		t.Errorf("plan outside the roots: %+v", pr)
	}
}

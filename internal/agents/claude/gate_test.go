package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/files"
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
}

// TestApproveEdited: a modified plan is approved with the edit in updatedInput.plan, every
// other member of tool_input kept as Claude Code sent it.
func TestApproveEdited(t *testing.T) {
	tests := []struct {
		name, input, plan, want string
	}{
		{"plan replaced, the rest kept in order", `{"plan":"# P","planFilePath":"/p.md","x":[1, 2]}`, "# P2\n1. a",
			`{"plan":"# P2\n1. a","planFilePath":"/p.md","x":[1, 2]}`},
		{"plan added when the input had none", `{"planFilePath":"/p.md"}`, "# P2",
			`{"planFilePath":"/p.md","plan":"# P2"}`},
		{"an empty input", `{}`, "# P2", `{"plan":"# P2"}`},
		{"no input at all", ``, "# P2", `{"plan":"# P2"}`},
		{"input that is not an object", `[1]`, "# P2", `{"plan":"# P2"}`},
		{"an empty edit keeps the plan", `{"plan":"# P"}`, " \n", `{"plan":"# P"}`},
		{"markup in the plan is escaped JSON", `{"plan":"# P"}`, "<b>\"q\"</b>", `{"plan":"\u003cb\u003e\"q\"\u003c/b\u003e"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ApproveEdited(json.RawMessage(tt.input), tt.plan, ModeAcceptEdits)
			if d.Behavior != "allow" || d.Mode != ModeAcceptEdits || string(d.Input) != tt.want {
				t.Errorf("got %+v (input %s), want allow with %s", d, d.Input, tt.want)
			}
			out := Answer(d)
			if err := CheckAnswer(out); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var got hookOut
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			var in struct{ Plan string }
			if err := json.Unmarshal(got.Out.Decision.UpdatedInput, &in); err != nil {
				t.Fatalf("updatedInput %s: %v", got.Out.Decision.UpdatedInput, err)
			}
			if strings.TrimSpace(tt.plan) != "" && in.Plan != tt.plan {
				t.Errorf("updatedInput.plan = %q, want %q", in.Plan, tt.plan)
			}
		})
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

// TestNewPlanRequestReadsOnlyConfiguredDirs: a plan file is read under the configured plan
// directories only; the event's cwd does not make a file readable, nor does a symlink out.
func TestNewPlanRequestReadsOnlyConfiguredDirs(t *testing.T) {
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
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(plansDir, "link.md")); err != nil {
		t.Fatal(err)
	}
	dirs := files.PlanDirs{plansDir}
	tests := []struct {
		path, want, why string
	}{
		{filepath.Join(plansDir, "snug-otter.md"), "# From plans", ""},
		{filepath.Join(cwd, "docs", "plan.md"), "", "outside"},
		{filepath.Join(outside, "secret.md"), "", "outside"},
		{filepath.Join(plansDir, "link.md"), "", "outside"},
		{filepath.Join(plansDir, "missing.md"), "", "does not exist"},
		{"docs/plan.md", "", "absolute"},
	}
	for _, tt := range tests {
		ev := Event{SessionID: "s", Cwd: cwd, HookEventName: EventPermissionRequest, ToolName: ToolExitPlanMode,
			ToolInput: json.RawMessage(`{"planFilePath":` + strconv.Quote(tt.path) + `}`)}
		pr := NewPlanRequest(ev, dirs)
		if pr.Markdown != tt.want || (tt.why == "") != (pr.Unreadable == "") || !strings.Contains(pr.Unreadable, tt.why) {
			t.Errorf("%s: got %q, %q; want %q, %q", tt.path, pr.Markdown, pr.Unreadable, tt.want, tt.why)
		}
	}
}

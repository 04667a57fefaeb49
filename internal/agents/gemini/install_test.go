package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	user := `{"theme":"dark","hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"audit.sh"}]}]},"zeta":1}`
	if err := os.WriteFile(settings, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(settings, InstallOptions{Command: "/opt/plan dash/plandash", Gate: true})
	if err != nil || !rep.Changed || !rep.PolicyChanged {
		t.Fatalf("install: %+v %v", rep, err)
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(settings); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", fi.Mode(), err)
	}
	s := string(b)
	if !(strings.Index(s, `"theme"`) < strings.Index(s, `"hooks"`) && strings.Index(s, `"hooks"`) < strings.Index(s, `"zeta"`)) || !strings.Contains(s, "audit.sh") {
		t.Errorf("user settings not kept in order:\n%s", s)
	}
	var v struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	before := v.Hooks[EventBeforeTool]
	if len(before) != 3 || before[1].Matcher != "^exit_plan_mode$" || before[1].Hooks[0].Timeout != 86_400_000 ||
		before[1].Hooks[0].Command != `'/opt/plan dash/plandash' hook gemini` ||
		before[2].Matcher != "^ask_user$" || before[2].Hooks[0].Timeout != 86_400_000 {
		t.Errorf("BeforeTool: %+v", before)
	}
	for _, ev := range []string{EventSessionStart, EventBeforeAgent, EventAfterAgent, EventAfterTool, EventSessionEnd} {
		if len(v.Hooks[ev]) != 1 || v.Hooks[ev][0].Hooks[0].Timeout != captureTimeout {
			t.Errorf("%s: %+v", ev, v.Hooks[ev])
		}
	}
	policy, err := os.ReadFile(filepath.Join(dir, ".gemini", "policies", "plandash.toml"))
	if err != nil || string(policy) != Policy {
		t.Errorf("policy: %q %v", policy, err)
	}

	if rep, err := Install(settings, InstallOptions{Command: "/opt/plan dash/plandash", Gate: true}); err != nil || rep.Changed || rep.PolicyChanged {
		t.Errorf("second install changed something: %+v %v", rep, err)
	}
	if rep, err := Install(settings, InstallOptions{Command: "/opt/plan dash/plandash"}); err != nil || !rep.Changed || !rep.PolicyChanged {
		t.Errorf("install without gate: %+v %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gemini", "policies", "plandash.toml")); !os.IsNotExist(err) {
		t.Errorf("policy left behind without the gate: %v", err)
	}
	if _, err := Uninstall(settings, "", ""); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "plandash") || !strings.Contains(string(b), "audit.sh") || strings.Contains(string(b), EventSessionStart) {
		t.Errorf("after uninstall:\n%s", b)
	}
}

func TestInstallRefusesBadSettings(t *testing.T) {
	for _, content := range []string{`{"a": 1, // comment` + "\n}", `[1]`, `{"hooks": 3}`, `{"hooks": {"BeforeTool": {}}}`} {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(path, InstallOptions{Gate: true}); err == nil {
			t.Errorf("%s: installed", content)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("%s: file changed to %s", content, b)
		}
	}
}

// TestUninstallKeepsMixedGroups: a group where the user put their own hook beside plandash's
// keeps the user's hook (the whole group used to go), and comments are refused saying where.
func TestUninstallKeepsMixedGroups(t *testing.T) {
	in := `{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"say done"},{"type":"command","command":"plandash hook gemini"}]}]}}`
	out, changed, err := mergeHooks([]byte(in), nil)
	if err != nil || !changed || strings.Contains(string(out), "plandash") || !strings.Contains(string(out), "say done") {
		t.Errorf("%v %v\n%s", changed, err, out)
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("{\n  // my theme\n  \"theme\": \"dark\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(path, InstallOptions{}); err == nil || !strings.Contains(err.Error(), path+" has a comment at line 2, column 3") {
		t.Errorf("a comment: %v", err)
	}
}

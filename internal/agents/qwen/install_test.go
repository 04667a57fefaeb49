package qwen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstall merges plandash's hooks into a user's settings, changes nothing the second time,
// and uninstalls back to the user's file byte for byte.
func TestInstall(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".qwen", "settings.json")
	user := "{\n  \"model\": {\"name\": \"qwen3-coder\"},\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"^run_shell_command$\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit.sh\"}]}]}\n}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(path, InstallOptions{Command: "/opt/plan dash/plandash", Server: "http://127.0.0.1:7420", Gate: true})
	if err != nil || !rep.Changed || rep.Created {
		t.Fatalf("install: %+v %v", rep, err)
	}
	b, _ := os.ReadFile(path)
	var s struct {
		Model map[string]any
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Command string
				Timeout int
			}
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if s.Model["name"] != "qwen3-coder" || len(s.Hooks["PreToolUse"]) != 1 {
		t.Errorf("the user's settings changed:\n%s", b)
	}
	for _, ev := range HookEventNames() {
		if len(s.Hooks[ev]) == 0 || !strings.Contains(s.Hooks[ev][0].Hooks[0].Command, "'/opt/plan dash/plandash' hook qwen --server") {
			t.Errorf("%s: %+v", ev, s.Hooks[ev])
		}
	}
	pr := s.Hooks[EventPermissionRequest]
	if len(pr) != 2 || pr[0].Matcher != "^exit_plan_mode$" || pr[0].Hooks[0].Timeout != 86_400_000 || pr[1].Matcher != "^ask_user_question$" {
		t.Errorf("PermissionRequest: %+v", pr)
	}
	if s.Hooks[EventStop][0].Hooks[0].Timeout != captureTimeout {
		t.Errorf("Stop timeout: %+v", s.Hooks[EventStop])
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600 kept", st.Mode().Perm())
	}
	again, err := Install(path, InstallOptions{Command: "/opt/plan dash/plandash", Server: "http://127.0.0.1:7420", Gate: true})
	if err != nil || again.Changed {
		t.Errorf("second install: %+v %v", again, err)
	}
	if _, err := Uninstall(path, ""); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	var a, u any
	if json.Unmarshal(after, &a) != nil || json.Unmarshal([]byte(user), &u) != nil {
		t.Fatalf("uninstalled file is not JSON:\n%s", after)
	}
	if jsonString(a) != jsonString(u) {
		t.Errorf("uninstall left:\n%s\nwant the user's:\n%s", after, user)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestInstallRefuses: a settings file with comments, or one that is not an object, is left as
// it is, with an error naming it.
func TestInstallRefuses(t *testing.T) {
	for _, body := range []string{"// mine\n{}", "[]", `{"hooks": 3}`} {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(path, InstallOptions{}); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: err %v, want one naming the file", body, err)
		}
		if b, _ := os.ReadFile(path); string(b) != body {
			t.Errorf("%q was changed to %q", body, b)
		}
	}
	// A fresh install creates the file.
	path := filepath.Join(t.TempDir(), "new", "settings.json")
	if rep, err := Install(path, InstallOptions{}); err != nil || !rep.Created {
		t.Errorf("fresh: %+v %v", rep, err)
	}
	if got := SettingsPath(func(k string) string { return map[string]string{"HOME": "/home/ann"}[k] }); got != "/home/ann/.qwen/settings.json" {
		t.Errorf("SettingsPath = %s", got)
	}
	if got := SettingsPath(func(k string) string { return map[string]string{"HOME": "/h", "QWEN_HOME": "/q"}[k] }); got != "/q/settings.json" {
		t.Errorf("SettingsPath with QWEN_HOME = %s", got)
	}
}

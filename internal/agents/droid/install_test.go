package droid

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstall: plandash's hooks go into a settings file as Droid writes it (its own keys, a
// user's hook), everything else stays in place, a second install changes nothing, and
// uninstalling gives the file back.
func TestInstall(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".factory", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	user := `{
  "customModels": [
    {
      "model": "claude-sonnet-4-5",
      "id": "custom:Scripted-0",
      "baseUrl": "http://127.0.0.1:1"
    }
  ],
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Execute",
        "hooks": [
          {
            "type": "command",
            "command": "audit.sh"
          }
        ]
      }
    ]
  },
  "trustedFolders": {
    "/p": {
      "trustedAt": "2026-01-01T00:00:00.000Z"
    }
  }
}`
	if err := os.WriteFile(settings, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(settings, InstallOptions{Command: "/opt/plan dash/plandash", Server: "http://h:7", Gate: true})
	if err != nil || !rep.Changed || rep.Created {
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
	if !(strings.Index(s, `"customModels"`) < strings.Index(s, `"hooks"`) && strings.Index(s, `"hooks"`) < strings.Index(s, `"trustedFolders"`)) || !strings.Contains(s, "audit.sh") {
		t.Errorf("user settings not kept in order:\n%s", s)
	}
	var v struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	pre := v.Hooks[EventPreToolUse]
	const cmd = `'/opt/plan dash/plandash' hook droid --server http://h:7`
	if len(pre) != 3 || pre[0].Matcher != "Execute" || pre[1].Matcher != ToolExitSpecMode || pre[1].Hooks[0].Timeout != 86_400 ||
		pre[1].Hooks[0].Command != cmd || pre[1].Hooks[0].Type != "command" || pre[2].Matcher != ToolAskUser || pre[2].Hooks[0].Timeout != 86_400 {
		t.Errorf("PreToolUse: %+v", pre)
	}
	for _, ev := range []string{EventSessionStart, EventUserPromptSubmit, EventPostToolUse, EventNotification, EventStop, EventSessionEnd} {
		if len(v.Hooks[ev]) != 1 || v.Hooks[ev][0].Hooks[0].Timeout != captureTimeout || v.Hooks[ev][0].Hooks[0].Command != cmd {
			t.Errorf("%s: %+v", ev, v.Hooks[ev])
		}
	}
	if rep, err := Install(settings, InstallOptions{Command: "/opt/plan dash/plandash", Server: "http://h:7", Gate: true}); err != nil || rep.Changed {
		t.Errorf("second install: %+v %v", rep, err)
	}
	// Without the gate the spec hook only captures: a short timeout.
	if _, err := Install(settings, InstallOptions{Command: "/opt/plan dash/plandash", Server: "http://h:7"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(settings)
	_ = json.Unmarshal(b, &v)
	if pre := v.Hooks[EventPreToolUse]; len(pre) != 3 || pre[1].Hooks[0].Timeout != captureTimeout {
		t.Errorf("PreToolUse without the gate: %+v", pre)
	}
	if rep, err := Uninstall(settings, ""); err != nil || !rep.Changed {
		t.Fatalf("uninstall: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(settings); string(b) != user+"\n" && string(b) != user {
		t.Errorf("uninstall did not restore the file:\n%s", b)
	}
}

func TestInstallCreatesAndRefuses(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	rep, err := Install(settings, InstallOptions{})
	if err != nil || !rep.Created || !strings.Contains(rep.String(), "created") {
		t.Fatalf("install into nothing: %+v %v", rep, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"hooks": // a comment
}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(bad, InstallOptions{}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("a file that is not plain JSON: %v", err)
	}
	if b, _ := os.ReadFile(bad); !strings.Contains(string(b), "// a comment") {
		t.Error("a refused file was changed")
	}
	if got := HookEventNames(); len(got) != 7 || got[0] != EventSessionStart {
		t.Errorf("HookEventNames = %v", got)
	}
}

package copilot

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestInstall(t *testing.T) {
	path := SettingsPath(t.TempDir(), "")
	user := "{\n  \"banner\": \"never\",\n  \"hooks\": {\n    \"agentStop\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./notify.sh\"\n      }\n    ]\n  }\n}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(path, InstallOptions{Command: "/opt/my tools/plandash", Server: "http://127.0.0.1:7777", Gate: true})
	if err != nil || !rep.Changed || rep.Created {
		t.Fatalf("install: %+v %v", rep, err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"bash": "'/opt/my tools/plandash' hook copilot --server http://127.0.0.1:7777"`, `"timeoutSec": 86400`,
		`"PLANDASH_COPILOT_EVENT": "preToolUse"`, `"bash": "./notify.sh"`, `"banner": "never"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings lack %s:\n%s", want, b)
		}
	}
	if got := installedEvents(b); !reflect.DeepEqual(got, []string{EventAgentStop, EventSessionStart, EventUserPrompt, EventPreToolUse, EventPermissionRequest, EventPostToolUse, EventErrorOccurred, EventSessionEnd}) {
		t.Errorf("Installed = %v", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v not kept", st.Mode())
	}
	if rep, err := Install(path, InstallOptions{Command: "/opt/my tools/plandash", Server: "http://127.0.0.1:7777", Gate: true}); err != nil || rep.Changed {
		t.Errorf("second install: %+v %v", rep, err)
	}
	if rep, err := Uninstall(path, ""); err != nil || !rep.Changed {
		t.Fatalf("uninstall: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(path); string(b) != user {
		t.Errorf("uninstall did not give the file back:\n%s", b)
	}

	bad := filepath.Join(t.TempDir(), "settings.json")
	_ = os.WriteFile(bad, []byte("{\n  // a comment\n}"), 0o644)
	if _, err := Install(bad, InstallOptions{}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a file with comments: %v", err)
	}
	ro := filepath.Join(t.TempDir(), "settings.json")
	_ = os.WriteFile(ro, []byte("{}"), 0o444)
	if _, err := Install(ro, InstallOptions{}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a read-only file: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "new", "settings.json")
	if rep, err := Install(fresh, InstallOptions{}); err != nil || !rep.Created || !strings.Contains(rep.String(), "created") {
		t.Errorf("a new file: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(fresh); !strings.Contains(string(b), `"timeoutSec": 10`) || !strings.Contains(string(b), `"PLANDASH_COPILOT_NO_GATE": "1"`) {
		t.Errorf("without the gate, captures are short and preToolUse only records plans:\n%s", b)
	}
}
